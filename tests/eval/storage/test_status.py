"""Run status on disk and run directory names: a run is `interrupted` exactly when the process
that owns it is gone (exited, a zombie, or its pid reused), and default names sort by time
and say task, mode and model."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from playscout.agent.ids import valid_id
from playscout.config import Settings
from playscout.eval.running.spec import default_run_dir, model_label
from playscout.eval.storage.status import RunOwner, RunStatus, read_status, write_status


def _status(state: str = "running") -> RunStatus:
    return RunStatus(id="r1", state=state, created=time.time())  # type: ignore[arg-type]


def test_a_running_run_of_a_live_process_stays_running(tmp_path: Path) -> None:
    write_status(tmp_path / "r1", _status(), RunOwner.me())
    got = read_status(tmp_path / "r1")
    assert got is not None and got.state == "running" and got.message is None


@pytest.mark.parametrize("state", ["running", "queued"])
def test_a_run_whose_process_exited_is_interrupted(tmp_path: Path, state: str) -> None:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    write_status(tmp_path / "r1", _status(state), RunOwner.of(proc.pid))
    assert read_status(tmp_path / "r1").state == state  # type: ignore[union-attr]
    proc.kill()
    time.sleep(0.2)  # killed but not reaped: a zombie is not alive either
    zombie = read_status(tmp_path / "r1")
    assert zombie is not None and zombie.state == "interrupted"
    proc.wait()
    gone = read_status(tmp_path / "r1")
    assert gone is not None and gone.state == "interrupted"
    assert f"pid {proc.pid}" in (gone.message or "") and "resumes it" in (gone.message or "")


def test_a_reused_pid_is_not_the_owner(tmp_path: Path) -> None:
    me = RunOwner.me()
    assert me.started is not None  # Linux: the start time comes from /proc
    write_status(
        tmp_path / "r1", _status(), RunOwner(pid=me.pid, host=me.host, started=me.started - 1)
    )
    assert read_status(tmp_path / "r1").state == "interrupted"  # type: ignore[union-attr]


def test_finished_states_are_never_rewritten(tmp_path: Path) -> None:
    for state in ("done", "failed", "cancelled"):
        write_status(tmp_path / state, _status(state), RunOwner(pid=2**22 + 1, host="here"))
        assert read_status(tmp_path / state).state == state  # type: ignore[union-attr]


def test_unreadable_status_is_none(tmp_path: Path) -> None:
    (tmp_path / "status.json").write_text("{not json")
    assert read_status(tmp_path) is None
    assert read_status(tmp_path / "missing") is None


def test_default_run_dirs_say_when_what_and_with_which_model(tmp_path: Path) -> None:
    when = time.mktime((2026, 1, 31, 14, 25, 1, 0, 0, -1))
    first = default_run_dir(tmp_path, "t9", "default", "Qwen/Qwen3-8B", when)
    assert first.name == "20260131T142501-t9-default-Qwen-Qwen3-8B"
    first.mkdir()
    second = default_run_dir(tmp_path, "t9", "default", "Qwen/Qwen3-8B", when)
    assert second.name == first.name + "-2"
    odd = default_run_dir(tmp_path, "gameplayqa", "oracle", "../../etc/passwd x" * 10, when)
    assert valid_id(odd.name) and odd.parent == tmp_path
    assert re.fullmatch(r"\d{8}T\d{6}-gameplayqa-oracle-etc-passwd-x-[A-Za-z0-9_-]+", odd.name)


def test_model_label_names_the_agent_model_or_the_baseline() -> None:
    s = Settings.model_validate({"agent": {"llm": {"base_url": "http://x/v1", "model": "m-1"}}})
    assert model_label("llm", s) == "m-1"
    assert model_label("workflow", s) == "workflow"
    assert model_label("llm", Settings()) == "no-model"
