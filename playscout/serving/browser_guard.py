"""What a web page the user visits must not do to a server on the user's machine: read it
through DNS rebinding, or change anything with a cross-site request (docs/api.md, "Browsers").

- Host: a keyless server answers only a `Host` that cannot be rebound: an IP address,
  `localhost`, the address it was told to bind, or a name in `serving.allowed_hosts` (421
  otherwise). A rebinding page reaches 127.0.0.1 under its own domain name, and the browser
  sends that name as Host; with an API key the page has no key to send, so no Host check.
- Cross-site: a request a browser marks `Sec-Fetch-Site: cross-site` or `same-site` is
  refused (403), except a top-level navigation (a link to the run browser); a state-changing
  request whose `Origin` is another origin is refused too (browsers that send no Sec-Fetch-*).
- No simple requests: POST/PUT/PATCH/DELETE need a JSON body (`Content-Type:
  application/json`) or a header no HTML form can send (`X-Requested-With`, `Authorization`),
  so a cross-site page cannot reach them without a CORS preflight, which this server never
  grants (415 otherwise).

A pure ASGI middleware: it reads headers only, before any route or body.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from urllib.parse import urlsplit

from playscout.serving.security import ASGIApp, Receive, Scope, Send, send_error

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
SAME_ORIGIN_FETCHES = frozenset({b"same-origin", b"none"})  # `none`: typed URL, bookmark
NON_SIMPLE_HEADERS = (b"x-requested-with", b"authorization")
DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def split_host(value: str) -> tuple[str, int | None]:
    """`host[:port]` (IPv6 in brackets) -> (lower-case host name, port or None); ('', None)
    when it does not parse."""
    try:
        parts = urlsplit("//" + value.strip())
        return (parts.hostname or "").lower(), parts.port
    except ValueError:
        return "", None


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


class BrowserGuardMiddleware:
    """See the module docstring. `keyless`: no API key is configured (then Host is checked);
    `bind_host`: serving.host; `allowed_hosts`: serving.allowed_hosts (`*`: any Host)."""

    def __init__(
        self, app: ASGIApp, *, keyless: bool, bind_host: str, allowed_hosts: Sequence[str]
    ) -> None:
        self.app = app
        self.keyless = keyless
        names = {h.strip().lower() for h in allowed_hosts if h.strip()}
        self.any_host = "*" in names
        self.names = names | {"localhost", bind_host.strip().lower()}

    def host_allowed(self, host: str, scope: Scope) -> bool:
        server = scope.get("server")  # the address this connection came in on
        return (
            self.any_host
            or host in self.names
            or (server is not None and host == str(server[0]).lower())
            or host.endswith(".localhost")  # browsers resolve these to loopback themselves
            or _is_ip(host)
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        raw_host = headers.get(b"host")
        host = raw_host.decode("latin-1") if raw_host is not None else None
        if self.keyless and host is not None:
            name, _ = split_host(host)
            if not self.host_allowed(name, scope):
                shown = name or host[:100]
                await send_error(
                    send,
                    421,
                    f"host {shown!r} is not this server's address; a server without an API key "
                    "answers only its own address, localhost and serving.allowed_hosts",
                    code="misdirected_request",
                )
                return
        method = str(scope.get("method", "GET")).upper()
        if (why := _cross_site(headers, method, host, scope)) is not None:
            await send_error(send, 403, why, code="cross_origin_refused")
            return
        if method in STATE_CHANGING and not _not_simple(headers):
            await send_error(
                send,
                415,
                f"{method} needs a JSON body (Content-Type: application/json) or an "
                "X-Requested-With header",
                code="json_body_required",
            )
            return
        await self.app(scope, receive, send)


def _cross_site(
    headers: dict[bytes, bytes], method: str, host: str | None, scope: Scope
) -> str | None:
    """Why a request that a page on another site made is refused, or None."""
    site = headers.get(b"sec-fetch-site")
    if site is not None and site.lower() not in SAME_ORIGIN_FETCHES:
        navigation = headers.get(b"sec-fetch-mode", b"").lower() == b"navigate"
        if not (navigation and method in ("GET", "HEAD")):
            return f"cross-site request refused (Sec-Fetch-Site: {site.decode('latin-1')})"
    origin = headers.get(b"origin")
    if origin is None or method in SAFE_METHODS:
        return None
    text = origin.decode("latin-1")
    if host is None or not _same_origin(text, host, str(scope.get("scheme", "http"))):
        return f"cross-origin {method} refused (Origin: {text[:100]})"
    return None


def _same_origin(origin: str, host: str, scheme: str) -> bool:
    """Does `Origin` name the host and port this request was sent to? (`null` never does.)"""
    try:
        parts = urlsplit(origin)
        origin_host, origin_port = (parts.hostname or "").lower(), parts.port
    except ValueError:
        return False
    name, port = split_host(host)
    if not origin_host or name != origin_host:
        return False
    if port is None and origin_port is None:  # both the scheme's default (a TLS proxy may differ)
        return True
    return (port or DEFAULT_PORTS.get(scheme)) == (origin_port or DEFAULT_PORTS.get(parts.scheme))


def _not_simple(headers: dict[bytes, bytes]) -> bool:
    """A request no HTML form or simple fetch can send without a CORS preflight."""
    media = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
    if media == b"application/json" or media.endswith(b"+json"):
        return True
    return any(headers.get(name) for name in NON_SIMPLE_HEADERS)
