"""SIGTERM to `playscout serve` (a real process) while a stream's client stays connected and
its run waits on the model (FakeOpenAIServer that never answers).

Before: with `serving.shutdown_grace_s=0` (or any value below 1, read as "wait forever") the
server was still up 120 s after SIGTERM; with a grace, uvicorn cut the stream when it ran out,
with no `error` event, and the trajectory said the client had disconnected. Now the server
exits; the stream's last event is an `error` with code `server_shutting_down`, sent before the
socket closes; the trajectory's last event says `interrupted: server shutdown`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from playscout.agent import read_trajectory
from playscout.agent.trajectory import ErrorEvent
from tests.clients.fake_openai_server import FakeOpenAIServer, Reply
from tests.serving.conftest import free_port

from .conftest import cli

pytestmark = pytest.mark.slow


def hang(body: dict[str, Any]) -> Reply:
    return Reply.hanging()


def serve(
    tmp_path: Path, synth_index, model_url: str, grace: float
) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {
        **os.environ,
        "PLAYSCOUT_SERVING__SHUTDOWN_GRACE_S": str(grace),
        "PLAYSCOUT_AGENT__TRAJECTORY_DIR": str(tmp_path / "traj"),
        "PLAYSCOUT_AGENT__SESSION_DB": str(tmp_path / "s.sqlite"),
        "PLAYSCOUT_AGENT__TOOL_PROTOCOL": "text",
        "PLAYSCOUT_EVAL__RUNS_DIR": str(tmp_path / "runs"),
    }
    log = (tmp_path / "serve.log").open("wb")
    proc = subprocess.Popen(
        cli("serve", "--index", str(synth_index.index_dir), "--port", str(port),
            "--llm-url", model_url, "--llm-model", "fake-model"),
        stdout=log, stderr=subprocess.STDOUT, env=env,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        assert proc.poll() is None, (tmp_path / "serve.log").read_text()[-2000:]
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, "serve did not start"
        time.sleep(0.1)


@pytest.mark.parametrize("grace", [0, 0.5, 2])
def test_sigterm_ends_open_streams_with_an_error_event(tmp_path, synth_index, grace) -> None:
    with FakeOpenAIServer(hang) as model:
        proc, url = serve(tmp_path, synth_index, model.url, grace)
        try:
            body = {"question": "who won?", "policy": "llm", "mode": "oracle"}
            with (
                httpx.Client(base_url=url, timeout=httpx.Timeout(120)) as c,
                c.stream("POST", "/v1/ask/stream", json=body) as s,
            ):
                ask_id = s.headers["X-Playscout-Trajectory"]
                lines = s.iter_lines()
                assert next(lines) == "event: run_start"  # mid-run: the model never answers
                proc.send_signal(signal.SIGTERM)
                rest = list(lines)  # returns when the server closes the stream
            proc.wait(timeout=60)  # it exits (before: still up 120 s later with a grace < 1)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(30)
    events = [ln for ln in rest if ln.startswith("event: ")]
    assert events and events[-1] == "event: error", rest
    data = json.loads(rest[rest.index("event: error") + 1].removeprefix("data: "))
    assert data["error"]["code"] == "server_shutting_down", data
    last = read_trajectory(tmp_path / "traj" / f"{ask_id}.jsonl")[-1]
    assert isinstance(last, ErrorEvent) and last.kind == "interrupted", last
    assert last.message == "interrupted: server shutdown"
    assert proc.returncode in (0, -signal.SIGTERM)  # uvicorn re-raises the signal it handled
