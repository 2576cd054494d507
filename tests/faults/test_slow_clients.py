"""Clients that hold a connection without finishing their request, over raw sockets to the real
server (uvicorn with playscout's protocol, as `playscout serve` runs it): a request head that
never ends gets a 408 and the connection closes; a body that stalls is closed; a head that
trickles in slowly but in time is answered. Before, 200 half-sent heads all stayed open after
30 s (the process's file limit was the only bound). And every response carries the headers a
JSON API and a static viewer should send."""

from __future__ import annotations

import socket
import time

import httpx
import pytest

from tests.serving.conftest import live_server

from .conftest import open_fds

pytestmark = pytest.mark.slow
HEAD = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: a-slow-phone\r\n\r\n"


def connect(url: str) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=60)


def read_all(s: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (60 s at most)."""
    out = b""
    while chunk := s.recv(4096):
        out += chunk
    return out


def test_half_sent_heads_get_408_and_are_closed(app_factory):
    app = app_factory(settings={"header_timeout_s": 1.0})
    with live_server(app) as srv:
        before = open_fds()
        socks = [connect(srv.url) for _ in range(50)]
        for s in socks:
            s.sendall(HEAD[:20])  # and never the rest
        replies = [read_all(s) for s in socks]  # returns only because the server closes
        for s in socks:
            s.close()
        assert all(r.startswith(b"HTTP/1.1 408 ") for r in replies), replies[0]
        deadline = time.monotonic() + 30
        while open_fds() > before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert open_fds() <= before  # every connection's socket was let go
        assert httpx.get(f"{srv.url}/healthz", timeout=30).status_code == 200


def test_a_stalled_body_is_closed_and_a_slow_head_in_time_is_answered(app_factory):
    app = app_factory(settings={"header_timeout_s": 20.0, "body_timeout_s": 1.0})
    with live_server(app) as srv:
        stalled = connect(srv.url)
        stalled.sendall(
            b"POST /v1/ask HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 1000\r\n\r\n" + b'{"question": "'  # then nothing
        )
        reply = read_all(stalled)  # returns only because the server closes
        stalled.close()
        assert not reply.startswith(b"HTTP/1.1 200"), reply
        assert app.state.serving.limiter.in_use == 0
        slow = connect(srv.url)
        for i in range(0, len(HEAD), 8):  # a head trickling in over ~2 s, inside the deadline
            slow.sendall(HEAD[i : i + 8])
            time.sleep(0.2)
        first = slow.recv(4096)
        slow.close()
        assert first.startswith(b"HTTP/1.1 200 "), first


def test_every_response_carries_the_safe_headers(app_factory):
    app = app_factory(api_key="k")
    with live_server(app) as srv, httpx.Client(base_url=srv.url, timeout=30) as c:
        for path, status in (("/healthz", 200), ("/viewer", 200), ("/v1/runs", 401),
                             ("/v1/trajectories/nope", 401)):  # fmt: skip
            r = c.get(path, follow_redirects=True)
            assert r.status_code == status, (path, r.status_code)
            assert r.headers["x-content-type-options"] == "nosniff", path
            assert r.headers["x-frame-options"] == "DENY", path
            assert r.headers["referrer-policy"] == "no-referrer", path
        authed = c.get("/v1/trajectories/nope", headers={"Authorization": "Bearer k"})
        assert authed.status_code == 404 and authed.headers["x-content-type-options"] == "nosniff"
