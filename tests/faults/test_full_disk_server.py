"""A full disk under every path the server writes, on real size-limited tmpfs mounts (root
only: CI runs as root; elsewhere these skip and say why), with the server a real uvicorn
subprocess whose log is read afterwards.

Before, a full disk under the ask trajectories was a 500 `internal_error` with tracebacks in
the log. Now each write path (an ask's trajectory, a streamed ask, a session's checkpoint, a
batch run's folder, a person's verdict, the judge's verdicts) answers 507 `storage_full` with
one line naming what could not be written, and the log has one line per refusal, no traceback.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.clients.fake_openai_server import FakeOpenAIServer, Reply
from tests.serving.conftest import error_object
from tests.serving.runs_data import write_run

from .conftest import Tmpfs, llm_settings, server_process

pytestmark = pytest.mark.slow


def fill(disk: Path) -> Path:
    """Writes one file until the file system refuses (ENOSPC); returns it (delete to free)."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        while True:
            os.write(fd, b"\0" * 65536)
    except OSError as e:
        assert e.errno == errno.ENOSPC
        try:  # the last partial page, byte by byte
            while True:
                os.write(fd, b"\0")
        except OSError:
            pass
    finally:
        os.close(fd)
    return filler


def storage_full(r: httpx.Response, naming: Path) -> str:
    assert r.status_code == 507, (r.status_code, r.text[:500])
    message = str(error_object(r.json(), "storage_full")["message"])
    assert "no space left on device" in message and str(naming) in message, message
    return message


def answer(body: dict[str, Any]) -> Reply:
    return Reply.chat("<answer>42</answer>")


def test_every_write_path_on_a_full_disk_is_507_and_one_log_line(
    tmp_path: Path, tmpfs: Tmpfs, synth_index
) -> None:
    asks, runs_disk = tmpfs("2m"), tmpfs("4m")
    traj, runs, sessions = asks / "traj", runs_disk / "runs", runs_disk / "s.sqlite"
    write_run(runs, "r1", 60)  # the judge appends more than the slack of a page
    with FakeOpenAIServer(answer) as model:
        settings = llm_settings(
            tmp_path, synth_index, model.url, traj=traj, session_db=sessions,
            corpus_dir=synth_index.corpus_dir, eval={"runs_dir": runs, "cache_db": None},
        )  # fmt: skip
        with (
            server_process(settings, tmp_path) as (url, log),
            httpx.Client(base_url=url, timeout=60) as c,
        ):
            ask = {"question": synth_index.question, "policy": "workflow", "mode": "oracle"}
            session = {"question": "who won?", "policy": "llm", "mode": "oracle"}
            session["session_id"] = "s1"
            assert c.post("/v1/ask", json=session).status_code == 200  # the db exists

            filler = fill(asks)
            storage_full(c.post("/v1/ask", json=ask), traj)
            with c.stream("POST", "/v1/ask/stream", json=ask) as s:
                lines = list(s.iter_lines())
            assert "event: error" in lines, lines[:6]
            data = lines[lines.index("event: error") + 1].removeprefix("data: ")
            error = error_object(httpx.Response(200, content=data).json(), "storage_full")
            assert str(traj) in error["message"]
            filler.unlink()
            assert c.post("/v1/ask", json=ask).status_code == 200  # room again: it runs

            fill(runs_disk)
            storage_full(c.post("/v1/ask", json={**session, "question": "and then?"}), sessions)
            run = {"task": "t9", "sport": "basketball", "mode": "oracle", "policy": "workflow"}
            storage_full(c.post("/v1/runs", json={**run, "limit": 1}), runs)
            mark = {"verdict": "right", "by": "me"}
            storage_full(c.post("/v1/runs/r1/questions/q0000/human", json=mark), runs / "r1")
            storage_full(c.post("/v1/runs/r1/judge", json={"judge": "equivalence"}), runs / "r1")
            assert c.get("/readyz").status_code in (200, 503)  # still serving
    text = log.read_text()
    assert "Traceback" not in text, text[-3000:]
    assert "internal error" not in text
    refusals = [ln for ln in text.splitlines() if "no space left on device" in ln]
    assert len(refusals) >= 6, text[-3000:]
