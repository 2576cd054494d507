"""uvicorn's HTTP/1.1 protocol with read deadlines. uvicorn closes idle keep-alive connections,
but not one that sent half a request head, nor one that stops sending its body: 200 such
connections stayed open until the process ran out of file descriptors. Here a request head must
arrive within `header_timeout_s` of the connection opening (408, then closed), and a body must
not stall for longer than `body_timeout_s` between chunks (closed: the route sees the client
as gone). The defaults let a slow mobile client through: a head is a few hundred bytes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from playscout.config import ServingSettings

_TIMEOUT_BODY = b"request head not received in time\n"
TIMEOUT_RESPONSE = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"connection: close\r\ncontent-length: %d\r\n\r\n%s" % (len(_TIMEOUT_BODY), _TIMEOUT_BODY)
)


class DeadlineH11Protocol(H11Protocol):
    header_timeout_s: float = 30.0
    body_timeout_s: float = 60.0
    on_shutdown: Callable[[], None] | None = None  # the app's, told first (see `shutdown`)

    def shutdown(self) -> None:
        """uvicorn's first step of a graceful shutdown, per open connection: the app hears of it
        now (its asks get `serving.shutdown_grace_s`, then are cancelled and say why), not after
        every connection has closed, which a stream held open by its client never does."""
        if self.on_shutdown is not None:
            self.on_shutdown()
        super().shutdown()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._deadline: asyncio.TimerHandle | None = None
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _arm(self) -> None:
        """A deadline while the client owes us bytes: the head (IDLE) or the body (SEND_BODY);
        none while the route works or the response streams."""
        self._disarm()
        if self.transport.is_closing():
            return
        state = self.conn.their_state
        if state is h11.IDLE:  # a request's head (an idle keep-alive is uvicorn's to close)
            self._deadline = self.loop.call_later(self.header_timeout_s, self._expired, True)
        elif state is h11.SEND_BODY:
            self._deadline = self.loop.call_later(self.body_timeout_s, self._expired, False)

    def _expired(self, head: bool) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        if head:  # no request to answer through h11 yet: the bytes of a plain 408
            self.transport.write(TIMEOUT_RESPONSE)
        self.transport.close()


def protocol_for(
    settings: ServingSettings, on_shutdown: Callable[[], None] | None = None
) -> type[DeadlineH11Protocol]:
    """The protocol class with this server's deadlines and shutdown hook (uvicorn takes a
    class, not options)."""
    return type(
        "DeadlineH11Protocol",
        (DeadlineH11Protocol,),
        {
            "header_timeout_s": settings.header_timeout_s,
            "body_timeout_s": settings.body_timeout_s,
            "on_shutdown": staticmethod(on_shutdown) if on_shutdown else None,
        },
    )


SHUTDOWN_MARGIN_S = 5.0
"""How long uvicorn waits past `shutdown_grace_s` before it cuts what is left: time for the
cancelled asks to record why and for their streams to send their last `error` event."""


def uvicorn_options(settings: ServingSettings, app: Any = None) -> dict[str, Any]:
    """What `serve` (and every test that runs the real server) passes to uvicorn. With `app`
    (create_app's), its asks hear of a shutdown as it starts (ServingState.begin_shutdown).
    The graceful timeout is never None (uvicorn's "wait forever"): a grace of 0 cancels the
    asks at once, and no stream can hold the server up."""
    state = getattr(getattr(app, "state", None), "serving", None)
    hook = getattr(state, "begin_shutdown", None)
    return {
        "http": protocol_for(settings, hook),
        "timeout_graceful_shutdown": settings.shutdown_grace_s + SHUTDOWN_MARGIN_S,
    }
