"""Server-sent events for `/v1/ask/stream`: each trajectory event as it happens, then a
`result` event with the same body `/v1/ask` returns, or an `error` event.

The run starts when the request is admitted and owns its slot (`AskRun`); the response only
reads its events. A client that goes away, before the first byte or mid-stream, cancels the
run at once, which then records `cancelled: client disconnected` in its trajectory."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import anyio
import orjson
from fastapi.responses import StreamingResponse

from playscout.agent.trajectory import Event
from playscout.errors import is_user_error
from playscout.serving.asks import CLIENT_GONE, AskCancelled, AskRun, Receive
from playscout.serving.schemas import AskRequest
from playscout.serving.state import ServingState

log = logging.getLogger(__name__)
_DONE = object()


def sse(event: str, data: Any, event_id: int | None = None) -> bytes:
    head = f"event: {event}\n" + (f"id: {event_id}\n" if event_id is not None else "")
    return head.encode() + b"data: " + orjson.dumps(data) + b"\n\n"


async def _events(run: AskRun, queue: asyncio.Queue[Any]) -> AsyncIterator[bytes]:
    while (item := await queue.get()) is not _DONE:
        event: Event = item
        yield sse(event.type, event.model_dump(mode="json"), event.seq)
    try:
        result = await run.result()
    except AskCancelled as e:
        yield sse("error", {"error": str(e)})
        return
    except Exception as e:
        if not is_user_error(e):
            log.exception("streamed ask failed")
        message = str(e) if is_user_error(e) else f"internal error: {type(e).__name__}"
        yield sse("error", {"error": message.splitlines()[0] if message else "error"})
        return
    yield sse("result", result.model_dump(mode="json"))


class AskEventStream(StreamingResponse):
    """Streams one run's events and cancels the run however the response ends: finished,
    client gone before the first byte, client gone mid-stream, or a failed send. It always
    listens for the disconnect itself, whatever ASGI spec version the server speaks, so a run
    that emits nothing for minutes is still stopped when its client leaves."""

    def __init__(self, run: AskRun, queue: asyncio.Queue[Any]) -> None:
        super().__init__(
            _events(run, queue),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )
        self.run = run

    async def __call__(self, scope: Any, receive: Receive, send: Any) -> None:
        try:
            async with anyio.create_task_group() as group:

                async def stream() -> None:
                    with contextlib.suppress(OSError):  # client gone: `finally` cancels
                        await self.stream_response(send)
                    group.cancel_scope.cancel()

                group.start_soon(stream)
                await self.listen_for_disconnect(receive)
                group.cancel_scope.cancel()
        finally:
            self.run.cancel(CLIENT_GONE)  # a no-op when the run has ended


def start_stream(state: ServingState, req: AskRequest) -> AskEventStream:
    """Admits the run now (or raises `Overloaded`), so a refused stream is a plain 429."""
    queue: asyncio.Queue[Any] = asyncio.Queue()
    run = AskRun(state, req, on_event=queue.put_nowait)
    run.task.add_done_callback(lambda _: queue.put_nowait(_DONE))
    return AskEventStream(run, queue)
