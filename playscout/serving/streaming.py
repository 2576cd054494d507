"""Server-sent events for `/v1/ask/stream`: each trajectory event as it happens, then a
`result` event with the same body `/v1/ask` returns, or an `error` event whose data is the
error object a blocking ask would answer with. While the agent is busy (a long model or tool
call) the stream sends an SSE comment every `serving.keepalive_s`, so proxies and clients with
read timeouts do not cut it. The chat completions facade streams through the same machinery.

The run starts when the request is admitted and owns its slot (`AskRun`); the response only
reads its events. A client that goes away, before the first byte or mid-stream, cancels the
run at once, which then records `cancelled: client disconnected` in its trajectory."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import orjson
from fastapi.responses import StreamingResponse

from playscout.agent.trajectory import Event
from playscout.serving.asks import CLIENT_GONE, TRAJECTORY_HEADER, AskRun, Receive
from playscout.serving.errors import STORAGE_CODES, describe
from playscout.serving.state import ServingState
from playscout.usecases.ask import PreparedAsk

log = logging.getLogger(__name__)
_DONE = object()
KEEPALIVE = b": keep-alive\n\n"  # an SSE comment: clients skip it, proxies see traffic
Items = AsyncIterator[Event | None]
Render = Callable[[AskRun, Items], AsyncIterator[bytes]]


def sse(event: str | None, data: Any, event_id: int | None = None) -> bytes:
    head = (f"event: {event}\n" if event else "") + (
        f"id: {event_id}\n" if event_id is not None else ""
    )
    return head.encode() + b"data: " + orjson.dumps(data) + b"\n\n"


async def run_items(queue: asyncio.Queue[Any], keepalive_s: float) -> Items:
    """The run's events as they happen, and None each time `keepalive_s` passes without one."""
    while True:
        try:
            item = await asyncio.wait_for(queue.get(), keepalive_s)
        except TimeoutError:
            yield None
            continue
        if item is _DONE:
            return
        yield item


def error_object(error: BaseException) -> dict[str, Any]:
    """The error body a stream ends with: the same object a blocking ask answers with."""
    described = describe(error)
    if described.status == 500:
        log.error("streamed ask failed", exc_info=error)
    elif described.code in STORAGE_CODES:
        log.error("streamed ask: %s", described.message)
    return described.body()


async def native_events(run: AskRun, items: Items) -> AsyncIterator[bytes]:
    async for event in items:
        if event is None:
            yield KEEPALIVE
            continue
        yield sse(event.type, event.model_dump(mode="json"), event.seq)
    try:
        result = await run.result()
    except Exception as e:
        yield sse("error", error_object(e))
        return
    yield sse("result", result.model_dump(mode="json"))


class AskEventStream(StreamingResponse):
    """Streams one run's events and cancels the run however the response ends: finished,
    client gone before the first byte, client gone mid-stream, or a failed send. It always
    listens for the disconnect itself, whatever ASGI spec version the server speaks, so a run
    that emits nothing for minutes is still stopped when its client leaves."""

    def __init__(
        self, run: AskRun, body: AsyncIterator[bytes], headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(
            body,
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no", **(headers or {})},
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


def start_stream(
    state: ServingState,
    req: PreparedAsk,
    render: Render = native_events,
    headers: dict[str, str] | None = None,
) -> AskEventStream:
    """Admits the run now (or raises `Overloaded`), so a refused stream is a plain 429.
    `render` turns the run's events into the body (native events, or chat completion chunks)."""
    queue: asyncio.Queue[Any] = asyncio.Queue()
    run = AskRun(state, req, on_event=queue.put_nowait)
    run.task.add_done_callback(lambda _: queue.put_nowait(_DONE))
    items = run_items(queue, state.settings.serving.keepalive_s)
    return AskEventStream(
        run, render(run, items), {TRAJECTORY_HEADER: run.trajectory_id, **(headers or {})}
    )
