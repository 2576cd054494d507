"""The real HTTP stack: uvicorn on a free loopback port, httpx over sockets."""

from __future__ import annotations

import dataclasses
import json
import threading
import time

import httpx

from playscout.agent import read_trajectory
from playscout.agent.trajectory import ErrorEvent
from playscout.tools import ALL_TOOLS
from playscout.tools.tool import Tool
from tests.synthdata import workflow_calls

from .conftest import api_error, live_server

ASK = {"policy": "workflow", "mode": "oracle"}


def delayed_tools(seconds: float, released: threading.Event | None = None) -> tuple[Tool, ...]:
    """The real tools, with search_documents held for `seconds` first: a run that is slow for
    a known time, to exercise admission control and shutdown. `released` is set when a hold
    ends, so a test can ask whether something happened while the tool was still held instead
    of timing it (a loaded machine stretches every wall-clock bound)."""

    def slow(ctx, args, _run=ALL_TOOLS[0].run):
        time.sleep(seconds)
        if released is not None:
            released.set()
        return _run(ctx, args)

    assert ALL_TOOLS[0].name == "search_documents"
    return (dataclasses.replace(ALL_TOOLS[0], run=slow), *ALL_TOOLS[1:])


def parse_sse(text: str) -> list[tuple[str, dict]]:
    """Events in order; SSE comments (keep-alives) are skipped, as clients do."""
    out = []
    for chunk in text.strip().split("\n\n"):
        lines = [line for line in chunk.splitlines() if not line.startswith(":")]
        if lines:
            fields = dict(line.split(": ", 1) for line in lines if ": " in line)
            out.append((fields["event"], json.loads(fields["data"])))
    return out


def test_live_ask_and_stream_order(app_factory, synth_index):
    with live_server(app_factory()) as srv, httpx.Client(base_url=srv.url, timeout=60) as c:
        r = c.post("/v1/ask", json={"question": synth_index.question, **ASK})
        assert r.status_code == 200 and r.json()["status"] == "answered"
        with c.stream(
            "POST", "/v1/ask/stream", json={"question": synth_index.question, **ASK}
        ) as s:
            assert s.headers["content-type"].startswith("text/event-stream")
            events = parse_sse(s.read().decode())
        names = [e for e, _ in events]
        steps = len(workflow_calls(synth_index.question))
        assert names == [
            "run_start", *["tool_call", "observation"] * steps, "final_answer", "result",
        ]  # fmt: skip
        result = events[-1][1]
        assert result["answer"] == events[-2][1]["answer"] and result["status"] == "answered"
        seqs = [d["seq"] for e, d in events[:-1]]
        assert seqs == sorted(seqs)
        assert c.get(f"/v1/trajectories/{result['trajectory_id']}").status_code == 200


def test_stream_sends_keepalives_while_a_tool_is_busy(app_factory, synth_index):
    app = app_factory(tools=delayed_tools(1.0), settings={"keepalive_s": 0.2})
    with live_server(app) as srv, httpx.Client(base_url=srv.url, timeout=60) as c:
        r = c.post("/v1/ask/stream", json={"question": synth_index.question, **ASK})
    assert r.status_code == 200 and r.headers["x-playscout-trajectory"]
    head = r.text.partition("event: observation")[0]
    assert head.count(": keep-alive\n\n") >= 3  # ~1 s of search at one per 0.2 s
    assert parse_sse(r.text)[-1][0] == "result"


def test_stream_reports_events_before_the_run_ends(app_factory, synth_index):
    released = threading.Event()
    with (
        live_server(app_factory(tools=delayed_tools(3.0, released))) as srv,
        httpx.Client(base_url=srv.url, timeout=60) as c,
    ):
        with c.stream(
            "POST", "/v1/ask/stream", json={"question": synth_index.question, **ASK}
        ) as s:
            lines = s.iter_lines()
            first = next(lines)
            first_while_held = not released.is_set()
            rest = "\n".join(lines)
        assert first == "event: run_start" and first_while_held and released.is_set()
        assert "event: result" in rest


def test_429_with_retry_after_under_limit_1(app_factory, synth_index):
    app = app_factory(tools=delayed_tools(1.5), settings={"max_concurrent_asks": 1})
    with live_server(app) as srv, httpx.Client(base_url=srv.url, timeout=60) as c:
        slow: dict[str, httpx.Response] = {}
        t = threading.Thread(
            target=lambda: slow.setdefault(
                "r", c.post("/v1/ask", json={"question": synth_index.question, **ASK})
            )
        )
        t.start()
        time.sleep(0.5)
        busy = c.post("/v1/ask", json={"question": synth_index.question, **ASK})
        assert busy.status_code == 429 and busy.headers["retry-after"] == "5"
        assert "busy" in api_error(busy, 429, "too_many_asks")["message"]
        assert c.post("/v1/ask/stream", json={"question": "q", **ASK}).status_code == 429
        t.join()
        assert slow["r"].status_code == 200
        assert c.post("/v1/ask", json={"question": synth_index.question, **ASK}).status_code == 200


def test_auth_and_body_limit_live(app_factory, synth_index):
    app = app_factory(api_key="k3y", settings={"max_body_bytes": 2048})
    with live_server(app) as srv, httpx.Client(base_url=srv.url, timeout=60) as c:
        api_error(c.get("/v1/trajectories"), 401, "invalid_api_key")
        ok = c.get("/v1/trajectories", headers={"Authorization": "Bearer k3y"})
        assert ok.status_code == 200
        big = c.post(
            "/v1/ask",
            headers={"Authorization": "Bearer k3y"},
            json={"question": "q" * 4000, **ASK},
        )
        assert big.status_code == 413

        def chunks():
            yield b'{"question": "'
            for _ in range(10):
                yield b"q" * 500
            yield b'"}'

        chunked = c.post(
            "/v1/ask",
            headers={"Authorization": "Bearer k3y", "content-type": "application/json"},
            content=chunks(),
        )
        assert "over 2048" in api_error(chunked, 413, "request_too_large")["message"]


def test_shutdown_finishes_in_flight_asks(app_factory, synth_index):
    app = app_factory(tools=delayed_tools(1.0), settings={"shutdown_grace_s": 20})
    with live_server(app, grace_s=20) as srv, httpx.Client(base_url=srv.url, timeout=60) as c:
        got: dict[str, httpx.Response] = {}
        t = threading.Thread(
            target=lambda: got.setdefault(
                "r", c.post("/v1/ask", json={"question": synth_index.question, **ASK})
            )
        )
        t.start()
        time.sleep(0.4)
        srv.stop()
        t.join()
        assert got["r"].status_code == 200 and got["r"].json()["status"] == "answered"


def test_shutdown_records_interrupted_runs(app_factory, synth_index, tmp_path):
    app = app_factory(tools=delayed_tools(5.0), settings={"shutdown_grace_s": 0.3})
    with live_server(app, grace_s=1) as srv, httpx.Client(base_url=srv.url, timeout=30) as c:
        t = threading.Thread(
            target=lambda: c.post("/v1/ask", json={"question": synth_index.question, **ASK}),
            daemon=True,
        )
        t.start()
        time.sleep(0.5)
        srv.stop()
    files = list((tmp_path / "traj").glob("*.jsonl"))
    assert len(files) == 1
    events = read_trajectory(files[0])
    last = events[-1]
    assert isinstance(last, ErrorEvent) and last.kind == "interrupted" and last.fatal
    assert last.seq == events[-2].seq + 1 and last.run_id == events[0].run_id
    from playscout.serving.trajectories import list_trajectories

    assert list_trajectories(tmp_path / "traj").items[0].status == "interrupted"
