"""Request guards: bearer key, body size and id validation.

Pure ASGI middlewares (not BaseHTTPMiddleware) so streamed responses pass through untouched and
the checks run before any route code reads the body.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import unquote_to_bytes

import orjson

from playscout.serving.errors import api_error

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


# Paths that carry no corpus data and must answer without a key (health checks, docs, viewer
# shell, and `/`, which only redirects to it; the viewer's data calls go through the API and
# need the key).
# Clip media may also carry the key in this cookie (the viewer sets it, SameSite=Strict, for
# this path only): a <video> or <img> element cannot send an Authorization header. It opens
# GET/HEAD of media and nothing else.
MEDIA_PREFIX = "/v1/clips/"
MEDIA_COOKIE = b"playscout_media_key"
PUBLIC_PREFIXES = ("/healthz", "/readyz", "/docs", "/redoc", "/openapi.json", "/viewer")


async def send_error(
    send: Send,
    status: int,
    message: str,
    headers: dict[str, str] | None = None,
    code: str | None = None,
) -> None:
    """The API's error body (serving/errors.py), sent before any route runs."""
    error = api_error(status, message, code, headers=headers)
    body = orjson.dumps(error.body())
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.lower().encode(), v.encode()) for k, v in error.headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


class BodyLimitMiddleware:
    """413 for bodies over `max_bytes`: at once when Content-Length says so, else as soon as a
    chunked body passes the limit (a client cannot dodge it by omitting the length)."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        if length is not None:
            try:
                too_big = int(length) > self.max_bytes
            except ValueError:
                await send_error(send, 400, "invalid Content-Length header")
                return
            if too_big:
                await send_error(send, 413, f"request body over {self.max_bytes} bytes")
                return
        if length is not None or scope.get("method") in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        # No length given (chunked): buffer up to the limit, then replay. Bounded by max_bytes.
        body, more = bytearray(), True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                await self.app(scope, receive, send)
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.max_bytes:
                await send_error(send, 413, f"request body over {self.max_bytes} bytes")
                return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


SAFE_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-content-type-options", b"nosniff"),  # a JSON body or a clip is never run as a page
    (b"x-frame-options", b"DENY"),  # the viewer is never framed by another site
    (b"referrer-policy", b"no-referrer"),  # ids in URLs stay on this server
    (b"cross-origin-resource-policy", b"same-origin"),
)
"""Sent with every response, errors and clip media included."""


class SafeHeadersMiddleware:
    """Adds SAFE_HEADERS to every response start (outermost, so errors other middlewares send
    get them too); a header a route set itself is kept."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers") or [])
                present = {k.lower() for k, _ in headers}
                headers += [(k, v) for k, v in SAFE_HEADERS if k not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


class BearerAuthMiddleware:
    """Optional bearer key, compared in constant time. No key configured = no check."""

    def __init__(self, app: ASGIApp, api_key: str | None) -> None:
        self.app = app
        self.expected = api_key.encode() if api_key else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.expected is None or scope["type"] != "http" or _public(scope.get("path", "")):
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        given = headers.get(b"authorization", b"")
        scheme, _, token = given.partition(b" ")
        if scheme.lower() == b"bearer" and hmac.compare_digest(token.strip(), self.expected):
            await self.app(scope, receive, send)
            return
        if _media_read(scope) and hmac.compare_digest(
            _cookie(headers.get(b"cookie", b""), MEDIA_COOKIE), self.expected
        ):
            await self.app(scope, receive, send)
            return
        await send_error(send, 401, "missing or wrong API key", {"WWW-Authenticate": "Bearer"})


def _media_read(scope: Scope) -> bool:
    """A GET/HEAD of clip media: what `<video>` and `<img>` fetch, which cannot send headers."""
    return scope.get("method") in ("GET", "HEAD") and str(scope.get("path", "")).startswith(
        MEDIA_PREFIX
    )


def _cookie(header: bytes, name: bytes) -> bytes:
    for part in header.split(b";"):
        key, _, value = part.strip().partition(b"=")
        if key == name:
            return unquote_to_bytes(value)  # the viewer sets encodeURIComponent(key)
    return b""


def _public(path: str) -> bool:
    return path == "/" or any(path == p or path.startswith(p + "/") for p in PUBLIC_PREFIXES)
