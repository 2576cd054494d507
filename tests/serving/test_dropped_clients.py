"""Clients that go away: raw sockets closed before the first byte, streams closed after k
events, blocking asks abandoned mid-run. The slot must come back and the run must stop."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import httpx

from playscout.agent import read_trajectory
from playscout.agent.trajectory import ErrorEvent, ToolCallEvent

from .conftest import live_server
from .test_live import ASK, delayed_tools


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


def test_streams_dropped_before_the_first_byte_free_their_slots(app_factory, synth_index, tmp_path):
    app = app_factory(tools=delayed_tools(3.0), settings={"max_concurrent_asks": 4})
    limiter = app.state.serving.limiter
    body = {"question": synth_index.question, **ASK}
    with live_server(app) as srv, httpx.Client(base_url=srv.url, timeout=60) as c:
        for _ in range(12):
            post_and_drop(srv.url, "/v1/ask/stream", body, linger_s=0.01)
        wait_until(lambda: limiter.in_use == 0, timeout_s=15)
        r = c.post("/v1/ask", json=body)
        assert r.status_code == 200 and r.json()["status"] == "answered"
    runs = trajectories(tmp_path / "traj")
    cancelled = [e for e in runs if cancel_marker(e)]
    assert len(runs) == 13 and len(cancelled) == 12
    assert all(cancel_marker(e).message == "cancelled: client disconnected" for e in cancelled)


def test_stream_closed_after_first_events_stops_the_run_within_a_second(
    app_factory, synth_index, tmp_path
):
    app = app_factory(tools=delayed_tools(2.0))
    limiter = app.state.serving.limiter
    with live_server(app) as srv, httpx.Client(base_url=srv.url, timeout=60) as c:
        with c.stream(
            "POST", "/v1/ask/stream", json={"question": synth_index.question, **ASK}
        ) as s:
            lines = s.iter_lines()
            assert next(lines) == "event: run_start"
            assert limiter.in_use == 1
        # The client has closed mid-run (the first search is still sleeping).
        took = wait_until(lambda: limiter.in_use == 0, timeout_s=5)
        assert took < 1.0
        [events] = trajectories(tmp_path / "traj")
        assert cancel_marker(events) is not None
        calls_then = sum(isinstance(e, ToolCallEvent) for e in events)
        time.sleep(2.5)  # the held search returns in its thread; the run must not go on
        [after] = trajectories(tmp_path / "traj")
        assert sum(isinstance(e, ToolCallEvent) for e in after) == calls_then
        assert c.get("/v1/trajectories").json()["items"][0]["status"] == "cancelled"


def test_blocking_ask_abandoned_mid_run_is_cancelled(app_factory, synth_index, tmp_path):
    app = app_factory(tools=delayed_tools(5.0), settings={"max_concurrent_asks": 1})
    limiter = app.state.serving.limiter
    body = {"question": synth_index.question, **ASK}
    with live_server(app) as srv:
        post_and_drop(srv.url, "/v1/ask", body, linger_s=0.5)
        took = wait_until(lambda: limiter.in_use == 0, timeout_s=5)
        assert took < 1.0  # not when the 5 s search would have finished
        [events] = trajectories(tmp_path / "traj")
        assert cancel_marker(events).message == "cancelled: client disconnected"
        time.sleep(5)  # past the held search: the cancelled run adds nothing more
        [after] = trajectories(tmp_path / "traj")
        assert len(after) == len(events)
