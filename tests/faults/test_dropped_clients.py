"""Clients that go away, over real sockets to uvicorn on loopback: raw sockets closed before
the first byte and mid-request, streams closed after k events, blocking asks abandoned
mid-run. The slot must come back, the run must stop (its trajectory says why), and no file
descriptor may stay open."""

from __future__ import annotations

import dataclasses
import json
import socket
import threading
import time
from pathlib import Path

import httpx
import pytest

from playscout.agent import read_trajectory
from playscout.agent.trajectory import ErrorEvent, ToolCallEvent
from playscout.tools import ALL_TOOLS
from playscout.tools.tool import Tool
from tests.serving.conftest import live_server
from tests.serving.test_live import ASK, delayed_tools

from .conftest import open_fds


def post_and_drop(url: str, path: str, body: dict, linger_s: float) -> None:
    """Sends a complete POST on a raw socket and closes it `linger_s` later, unread."""
    host, port = url.removeprefix("http://").split(":")
    payload = json.dumps(body).encode()
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(payload)}\r\n\r\n"
    ).encode()
    with socket.create_connection((host, int(port)), timeout=5) as s:
        s.sendall(head + payload)
        time.sleep(linger_s)


def wait_until(predicate, timeout_s: float) -> float:
    start = time.monotonic()
    while not predicate():
        if time.monotonic() - start > timeout_s:
            raise AssertionError(f"not true within {timeout_s} s")
        time.sleep(0.02)
    return time.monotonic() - start


def trajectories(directory: Path) -> list[list]:
    return [read_trajectory(p) for p in sorted(directory.glob("*.jsonl"))]


def cancel_marker(events: list) -> ErrorEvent | None:
    last = events[-1] if events else None
    return last if isinstance(last, ErrorEvent) and last.kind == "cancelled" else None


def slow_tools(seconds: float) -> tuple[Tool, ...]:
    """Every tool held `seconds` first: wherever a client drops, the run is mid-tool."""

    def held(tool: Tool) -> Tool:
        def run(ctx, args, _run=tool.run):
            time.sleep(seconds)
            return _run(ctx, args)

        return dataclasses.replace(tool, run=run)

    return tuple(held(t) for t in ALL_TOOLS)


def test_streams_dropped_before_the_first_byte_free_their_slots(app_factory, synth_index, tmp_path):
    app = app_factory(tools=delayed_tools(3.0), settings={"max_concurrent_asks": 4})
    limiter = app.state.serving.limiter
    body = {"question": synth_index.question, **ASK}
    with live_server(app) as srv, httpx.Client(base_url=srv.url, timeout=60) as c:
        for _ in range(12):
            post_and_drop(srv.url, "/v1/ask/stream", body, linger_s=0.01)
        wait_until(lambda: limiter.in_use == 0, timeout_s=60)
        r = c.post("/v1/ask", json=body)
        assert r.status_code == 200 and r.json()["status"] == "answered"
    runs = trajectories(tmp_path / "traj")
    # A client that left before admission starts no run (a loaded machine admits fewer of the
    # twelve before they go); every run that did start was cancelled, and only the last answered.
    cancelled = [e for e in runs if cancel_marker(e)]
    assert 1 <= len(cancelled) == len(runs) - 1 <= 12
    assert all(cancel_marker(e).message == "cancelled: client disconnected" for e in cancelled)


def test_stream_closed_after_first_events_stops_the_run_before_its_tool_returns(
    app_factory, synth_index, tmp_path
):
    released = threading.Event()
    app = app_factory(tools=delayed_tools(4.0, released))
    limiter = app.state.serving.limiter
    with live_server(app) as srv, httpx.Client(base_url=srv.url, timeout=60) as c:
        with c.stream(
            "POST", "/v1/ask/stream", json={"question": synth_index.question, **ASK}
        ) as s:
            lines = s.iter_lines()
            assert next(lines) == "event: run_start"
            assert limiter.in_use == 1
        # The client has closed mid-run (the first search is still sleeping).
        wait_until(lambda: limiter.in_use == 0, timeout_s=30)
        assert not released.is_set()  # the slot came back while the tool was still held
        [events] = trajectories(tmp_path / "traj")
        assert cancel_marker(events) is not None
        calls_then = sum(isinstance(e, ToolCallEvent) for e in events)
        assert released.wait(60)  # the held search returns in its thread; the run must not go on
        time.sleep(0.5)
        [after] = trajectories(tmp_path / "traj")
        assert sum(isinstance(e, ToolCallEvent) for e in after) == calls_then
        assert c.get("/v1/trajectories").json()["items"][0]["status"] == "cancelled"


def test_blocking_ask_abandoned_mid_run_is_cancelled(app_factory, synth_index, tmp_path):
    released = threading.Event()
    app = app_factory(tools=delayed_tools(5.0, released), settings={"max_concurrent_asks": 1})
    limiter = app.state.serving.limiter
    body = {"question": synth_index.question, **ASK}
    with live_server(app) as srv:
        post_and_drop(srv.url, "/v1/ask", body, linger_s=0.5)
        wait_until(lambda: limiter.in_use == 0, timeout_s=30)
        assert not released.is_set()  # not when the 5 s search would have finished
        [events] = trajectories(tmp_path / "traj")
        assert cancel_marker(events).message == "cancelled: client disconnected"
        assert released.wait(60)  # past the held search: the cancelled run adds nothing more
        time.sleep(0.5)
        [after] = trajectories(tmp_path / "traj")
        assert len(after) == len(events)


@pytest.mark.parametrize("k", [1, 3, 5])
def test_stream_dropped_after_k_events_is_cancelled_and_leaks_nothing(
    k, app_factory, synth_index, tmp_path
):
    app = app_factory(tools=slow_tools(0.4))
    limiter = app.state.serving.limiter
    body = {"question": synth_index.question, **ASK}
    with live_server(app) as srv, httpx.Client(base_url=srv.url, timeout=60) as c:
        assert c.post("/v1/ask", json=body).status_code == 200  # warm: lazy opens happen now
        before = open_fds()
        with c.stream("POST", "/v1/ask/stream", json=body) as s:
            seen = 0
            for line in s.iter_lines():
                seen += line.startswith("event: ")
                if seen == k:
                    break
        wait_until(lambda: limiter.in_use == 0, timeout_s=30)
        cancelled = [e for e in trajectories(tmp_path / "traj") if cancel_marker(e)]
        assert len(cancelled) == 1
        assert cancel_marker(cancelled[0]).message == "cancelled: client disconnected"
        wait_until(lambda: not open_fds() - before, timeout_s=5)  # no socket or file stays


def test_request_cut_off_mid_body_admits_nothing(app_factory, synth_index):
    app = app_factory(tools=delayed_tools(1.0))
    limiter = app.state.serving.limiter
    body = json.dumps({"question": synth_index.question, **ASK}).encode()
    with live_server(app) as srv, httpx.Client(base_url=srv.url, timeout=60) as c:
        host, port = srv.url.removeprefix("http://").split(":")
        for path in ("/v1/ask", "/v1/ask/stream"):
            for _ in range(4):
                with socket.create_connection((host, int(port)), timeout=5) as s:
                    s.sendall(
                        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        f"Content-Length: {len(body)}\r\n\r\n".encode()
                        + body[: len(body) // 2]
                    )
                    time.sleep(0.02)
        time.sleep(0.3)
        assert limiter.in_use == 0 and not limiter.tasks
        r = c.post("/v1/ask", json={"question": synth_index.question, **ASK})
        assert r.status_code == 200
