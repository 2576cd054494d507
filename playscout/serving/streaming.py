"""Server-sent events for `/v1/ask/stream`: each trajectory event as it happens, then a
`result` event with the same body `/v1/ask` returns, or an `error` event. A client that goes
away cancels the run, which then records itself as interrupted."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

import orjson

from playscout.agent.trajectory import Event
from playscout.errors import is_user_error
from playscout.serving.asks import run_ask
from playscout.serving.schemas import AskRequest, AskResponse
from playscout.serving.state import ServingState

log = logging.getLogger(__name__)
_DONE = object()


def sse(event: str, data: Any, event_id: int | None = None) -> bytes:
    head = f"event: {event}\n" + (f"id: {event_id}\n" if event_id is not None else "")
    return head.encode() + b"data: " + orjson.dumps(data) + b"\n\n"


async def ask_events(state: ServingState, req: AskRequest) -> AsyncIterator[bytes]:
    """The caller acquired a limiter slot; it is released when this generator ends."""
    queue: asyncio.Queue[Any] = asyncio.Queue()
    task = state.limiter.spawn(run_ask(state, req, on_event=queue.put_nowait))
    task.add_done_callback(lambda _: queue.put_nowait(_DONE))
    try:
        while (item := await queue.get()) is not _DONE:
            event: Event = item
            yield sse(event.type, event.model_dump(mode="json"), event.seq)
        try:
            result: AskResponse = task.result()
        except asyncio.CancelledError:
            yield sse("error", {"error": "run interrupted (server shutting down)"})
            return
        except Exception as e:
            if not is_user_error(e):
                log.exception("streamed ask failed")
            message = str(e) if is_user_error(e) else f"internal error: {type(e).__name__}"
            yield sse("error", {"error": message.splitlines()[0] if message else "error"})
            return
        yield sse("result", result.model_dump(mode="json"))
    finally:
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        state.limiter.release()
