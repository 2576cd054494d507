"""A corrupt sessions database (`agent.session_db`, the multi-turn checkpoints). Before, the
server started, `/readyz` said ready, and the first ask that named a session failed with a 500.
Now `playscout serve` refuses to start on it with one line, and a database that breaks while
the server runs turns `/readyz` to 503 and such asks to 503 `sessions_unavailable`. Real
processes: `playscout serve`, a uvicorn subprocess, SQLite files with their bytes overwritten."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.clients.fake_openai_server import FakeOpenAIServer, Reply
from tests.serving.conftest import api_error, free_port

from .conftest import cli, error_line, llm_settings, server_process

pytestmark = pytest.mark.slow


def answer(body: dict[str, Any]) -> Reply:
    return Reply.chat("<answer>42</answer>")


def corrupt(db: Path) -> None:
    """Garbage over every page, as a bad disk or a stray copy leaves it (over the write-ahead
    log's too, where the recent pages are)."""
    for path in (db, db.with_name(db.name + "-wal")):
        if path.exists():
            with path.open("r+b") as fh:
                fh.write(os.urandom(path.stat().st_size))


def a_sessions_db(path: Path) -> Path:
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE checkpoints (thread_id TEXT, checkpoint BLOB)")
        con.executemany(
            "INSERT INTO checkpoints VALUES (?, ?)", [(str(i), b"x" * 3000) for i in range(50)]
        )
    return path


def test_serve_refuses_to_start_on_a_corrupt_sessions_db(tmp_path: Path, synth_index) -> None:
    db = a_sessions_db(tmp_path / "sessions.sqlite")
    corrupt(db)
    with FakeOpenAIServer(answer) as model:
        env = {
            **os.environ,
            "PLAYSCOUT_AGENT__SESSION_DB": str(db),
            "PLAYSCOUT_AGENT__TRAJECTORY_DIR": str(tmp_path / "traj"),
            "PLAYSCOUT_EVAL__RUNS_DIR": str(tmp_path / "runs"),
        }
        done = subprocess.run(
            cli("serve", "--index", str(synth_index.index_dir), "--port", str(free_port()),
                "--llm-url", model.url, "--llm-model", "fake-model"),
            capture_output=True, text=True, timeout=60, env=env,
        )  # fmt: skip
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    line = error_line(done)
    assert f"the session database {db} cannot be used" in line, line
    assert "move it away" in line


def test_a_sessions_db_that_breaks_while_serving_is_503_not_500(tmp_path: Path, synth_index):
    db = tmp_path / "sessions.sqlite"
    with FakeOpenAIServer(answer) as model:
        settings = llm_settings(tmp_path, synth_index, model.url, session_db=db)
        with (
            server_process(settings, tmp_path) as (url, log),
            httpx.Client(base_url=url, timeout=60) as c,
        ):
            ask = {"question": "who won?", "policy": "llm", "mode": "oracle", "session_id": "s1"}
            assert c.post("/v1/ask", json=ask).status_code == 200
            assert c.get("/readyz").status_code == 200
            corrupt(db)
            r = c.get("/readyz")
            assert r.status_code == 503 and r.json()["sessions"]["status"] == "error", r.text
            assert str(db) in r.json()["sessions"]["error"]
            message = api_error(c.post("/v1/ask", json=ask), 503, "sessions_unavailable")
            assert f"the session database {db} cannot be used" in message["message"]
            plain = {k: v for k, v in ask.items() if k != "session_id"}
            assert c.post("/v1/ask", json=plain).status_code == 200  # no session: it runs
    assert "Traceback" not in log.read_text(), log.read_text()[-3000:]
