"""Runs that end badly, over real HTTP: a run cancelled through the API stops calling its
model, says `cancelled` and leaves no thread, task or socket behind; a run whose server is
killed is listed as `interrupted` by the next server. The agent's model is FakeOpenAIServer (a
real HTTP server with scripted replies: no model can be served cheaply here), the runs are the
real runner over the shared synthetic index."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from playscout.serving.app import create_app
from playscout.serving.eval_service import EvalRunService
from tests.clients.fake_openai_server import FakeOpenAIServer, Reply
from tests.serving.conftest import free_port, live_server, make_settings

TOOL_CALL = (
    '<tool_call>{"name": "search_documents", "arguments": {"query": "final score"}}</tool_call>'
)
RUN = {"task": "t9", "sport": "basketball", "mode": "oracle", "policy": "llm", "limit": 3}

pytestmark = pytest.mark.slow


def always_search(body: dict[str, Any]) -> Reply:
    return Reply.chat(TOOL_CALL)


def search_then_answer(body: dict[str, Any]) -> Reply:
    """One search, then an answer: a question takes two model calls."""
    seen = json.dumps(body.get("messages", []))
    return Reply.chat("<answer>42</answer>" if "tool_response" in seen else TOOL_CALL)


def model_settings(tmp_path: Path, synth_index, url: str, **eval_: Any):
    return make_settings(
        tmp_path,
        synth_index,
        corpus_dir=synth_index.corpus_dir,
        agent={
            "trajectory_dir": tmp_path / "traj",
            "session_db": tmp_path / "s.sqlite",
            "tool_protocol": "text",
            "llm": {"base_url": url, "model": "fake-model", "max_retries": 0},
        },
        eval={"runs_dir": tmp_path / "runs", "cache_db": None, **eval_},
    )


def new_threads(before: set[threading.Thread]) -> list[str]:
    """Threads started since `before`, except the HTTP server's idle pool for sync routes
    (AnyIO's workers stay for the next request; they are the server's, not the run's)."""
    return [t.name for t in set(threading.enumerate()) - before if t.name != "AnyIO worker thread"]


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def wait_for(check, timeout_s: float, what: str) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if value := check():
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_run_cancelled_over_http_stops_and_leaks_nothing(tmp_path, synth_index):
    with FakeOpenAIServer(always_search, latency_s=0.15) as model:
        settings = model_settings(tmp_path, synth_index, model.url, concurrency=3)
        service = EvalRunService(settings, settings.eval, synth_index.backend)
        app = create_app(settings, backend=synth_index.backend, run_service=service)
        with live_server(app) as srv, httpx.Client(base_url=srv.url, timeout=30) as c:
            c.get("/v1/runs")  # the client's keep-alive connection is open before counting
            threads, fds = set(threading.enumerate()), open_fds()
            run_id = c.post("/v1/runs", json=RUN).json()["id"]
            wait_for(lambda: len(model.requests) >= 6, 60, "the agents to call the model")
            r = c.post(f"/v1/runs/{run_id}/cancel", json={})
            assert r.status_code == 202 and r.json()["message"].startswith("cancel requested")
            assert service.wait(run_id, 30), "the run's thread did not end"
            calls = len(model.requests)
            info = c.get(f"/v1/runs/{run_id}").json()
            assert info["state"] == "cancelled" and "resumed" in info["message"]
            assert info["questions"] == 0  # nobody finished: 30 calls each were scripted
            time.sleep(1.0)  # ~6 model latencies: any agent still alive would call again
            assert len(model.requests) == calls, "model calls after the run was cancelled"
            assert c.post(f"/v1/runs/{run_id}/cancel", json={}).status_code == 409
            # Nothing leaks: no run thread, no executor thread, no socket or file left open.
            assert service.running() == []
            wait_for(lambda: not new_threads(threads), 10, "threads to end")
            wait_for(lambda: open_fds() <= fds, 10, f"fds back to {fds} (now {open_fds()})")
            for path in (tmp_path / "runs" / run_id / "trajectories").glob("*.jsonl"):
                assert path.read_text().strip(), "a trajectory left empty"


SERVER = """
import json, sys
import uvicorn
from playscout.config import Settings
from playscout.serving.eval_service import EvalRunService
from playscout.serving.app import create_app
settings = Settings.model_validate(json.loads(open(sys.argv[1]).read()))
app = create_app(settings, run_service=EvalRunService(settings, settings.eval))
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
"""


def start_server(config: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-c", SERVER, str(config), str(port)], stdout=out, stderr=out
        )
    url = f"http://127.0.0.1:{port}/healthz"

    def up() -> bool:
        assert proc.poll() is None, log.read_text()[-2000:]
        try:
            return httpx.get(url, timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    wait_for(up, 120, "the server to start")
    return proc


def test_a_run_killed_with_its_server_is_listed_interrupted_after_restart(tmp_path, synth_index):
    with FakeOpenAIServer(search_then_answer, latency_s=0.4) as model:
        settings = model_settings(tmp_path, synth_index, model.url, concurrency=1)
        config = tmp_path / "settings.json"
        config.write_text(settings.model_dump_json())
        log, port = tmp_path / "server.log", free_port()
        url = f"http://127.0.0.1:{port}"
        first = start_server(config, port, log)
        second = None
        try:
            run_id = httpx.post(f"{url}/v1/runs", json=RUN, timeout=30).json()["id"]

            def one_done() -> dict[str, Any] | None:
                info = httpx.get(f"{url}/v1/runs/{run_id}", timeout=10).json()
                return info if info["questions"] >= 1 else None

            before = wait_for(one_done, 60, "a first answered question")
            assert before["state"] == "running" and before["questions"] < 3
            first.send_signal(signal.SIGKILL)
            first.wait(30)
            second = start_server(config, port, log)
            after = httpx.get(f"{url}/v1/runs/{run_id}", timeout=10).json()
            assert after["state"] == "interrupted", after
            assert "resumes it" in after["message"] and str(first.pid) in after["message"]
            assert 1 <= after["questions"] < 3
            listed = httpx.get(f"{url}/v1/runs", params={"status": "interrupted"}).json()
            assert [r["id"] for r in listed["items"]] == [run_id]
            assert httpx.post(f"{url}/v1/runs/{run_id}/cancel", json={}).status_code == 409
        finally:
            for proc in (first, second):
                if proc is not None and proc.poll() is None:
                    proc.kill()
                    proc.wait(30)
