"""An ask in flight when its server dies: the next server lists it `interrupted`, naming the
dead process, never `running` forever (the trajectory records its owner as batch runs do).
The server is a real `uvicorn` subprocess killed with SIGKILL; the agent's model is
FakeOpenAIServer (a real HTTP server that never answers, so the ask is mid-call when killed)."""

from __future__ import annotations

import signal
import subprocess
import sys
from typing import Any

import httpx
import pytest

from playscout.agent.trajectory import JsonlRecorder, RunStart, TrajectoryWriter
from playscout.serving.trajectories import list_trajectories, load_trajectory
from playscout.storage import ProcessOwner
from tests.clients.fake_openai_server import FakeOpenAIServer, Reply
from tests.serving.conftest import free_port
from tests.serving.test_run_faults import model_settings, start_server, wait_for

pytestmark = pytest.mark.slow


def hang(body: dict[str, Any]) -> Reply:
    return Reply.hanging()


def test_an_ask_killed_with_its_server_is_interrupted_after_restart(tmp_path, synth_index):
    with FakeOpenAIServer(hang) as model:
        settings = model_settings(tmp_path, synth_index, model.url)
        config = tmp_path / "settings.json"
        config.write_text(settings.model_dump_json())
        log, port = tmp_path / "server.log", free_port()
        url = f"http://127.0.0.1:{port}"
        first = start_server(config, port, log)
        second = None
        try:
            body = {"question": synth_index.question, "policy": "llm", "mode": "oracle"}
            with (
                httpx.Client(base_url=url, timeout=30) as c,
                c.stream("POST", "/v1/ask/stream", json=body) as s,
            ):
                ask_id = s.headers["X-Playscout-Trajectory"]
                lines = s.iter_lines()  # kept: a dropped iterator closes the connection
                assert next(lines) == "event: run_start"  # mid-run: the model hangs

                def listed_running() -> list[str]:
                    page = c.get("/v1/trajectories", params={"status": "running"}).json()
                    return [i["id"] for i in page["items"]]

                assert wait_for(listed_running, 30, "the ask listed as running") == [ask_id]
                first.send_signal(signal.SIGKILL)
                first.wait(30)
            second = start_server(config, port, log)
            with httpx.Client(base_url=url, timeout=30) as c:
                running = c.get("/v1/trajectories", params={"status": "running"}).json()
                assert running["items"] == []
                listed = c.get("/v1/trajectories", params={"status": "interrupted"}).json()
                [item] = listed["items"]
                assert item["id"] == ask_id and f"pid {first.pid}" in item["error"]
                detail = c.get(f"/v1/trajectories/{ask_id}").json()
                assert detail["summary"]["status"] == "interrupted"
                assert f"pid {first.pid}" in detail["summary"]["error"]
        finally:
            for proc in (first, second):
                if proc is not None and proc.poll() is None:
                    proc.kill()
                    proc.wait(30)


def test_a_cached_summary_turns_interrupted_when_its_owner_dies(tmp_path):
    """The listing caches summaries by file size and mtime; a killed writer never touches its
    file again, so the owner is asked again on every listing of a `running` item."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        for name, owner in (("live", ProcessOwner.of(child.pid)), ("ownerless", None)):
            writer = TrajectoryWriter(name, [JsonlRecorder(tmp_path / f"{name}.jsonl")])
            fields = {"question": "q", "sport": "soccer", "mode": "oracle", "policy": "llm"}
            writer.emit(RunStart, **fields, owner=owner)
            writer.close()
        status = {i.id: (i.status, i.error) for i in list_trajectories(tmp_path).items}
        assert status["live"] == ("running", None)
        assert status["ownerless"][0] == "interrupted" and "no owner" in status["ownerless"][1]
    finally:
        child.kill()
        child.wait(30)
    status = {i.id: (i.status, i.error) for i in list_trajectories(tmp_path).items}
    why = f"the process that ran it (pid {child.pid}) ended before it finished"
    assert status["live"] == ("interrupted", why)
    assert load_trajectory(tmp_path, "live").summary["status"] == "interrupted"
