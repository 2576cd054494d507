"""Two processes on one run folder: the first holds the run's lock until it ends, a second
`eval run --out` on it (a resume from another shell, or beside a server that runs it) is
refused at once with one line naming the holder, exit 2, and adds no row. Before the lock, both
ran and 22 of 25 questions ran twice."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from playscout.cli.main import app
from playscout.config import EvalSettings, Settings
from playscout.eval import RunSpec, run_eval
from playscout.eval.storage.status import read_status
from playscout.eval.tasks.t9 import T9Task
from playscout.serving.eval_service import EvalRunService
from playscout.storage import OutputBusyError
from playscout.usecases import RunRequest
from tests.eval.running.test_runner import _SLOW

SPORTS = ("basketball",)  # the shared synthetic index's sport

pytestmark = pytest.mark.slow


@pytest.fixture
def settings(synth_index) -> Settings:
    return Settings(corpus_dir=synth_index.corpus_dir, index=str(synth_index.index_dir),
                    eval=EvalSettings(cache_db=None))  # fmt: skip


def _rows(run: Path) -> int:
    results = run / "results.jsonl"
    return results.read_text().count("\n") if results.is_file() else 0


def _cli_resume(run: Path, synth_index) -> tuple[int, str]:
    args = ["eval", "run", "--task", "t9", "--sport", "basketball", "--mode", "oracle", "--policy", "workflow",
            "--out", str(run), "--index", str(synth_index.index_dir),
            "--corpus", str(synth_index.corpus_dir), "--no-cache"]  # fmt: skip
    result = CliRunner().invoke(app, args)
    return result.exit_code, result.output


def test_a_second_resume_of_a_running_run_is_refused(tmp_path, synth_index, settings) -> None:
    run = tmp_path / "run"
    script = tmp_path / "slow.py"
    script.write_text(_SLOW)
    argv = [sys.executable, str(script), str(synth_index.corpus_dir), str(synth_index.index_dir)]
    first = subprocess.Popen([*argv, str(run)])
    try:
        deadline = time.monotonic() + 120
        while (s := read_status(run)) is None or s.state != "running":
            assert time.monotonic() < deadline and first.poll() is None, "the run never started"
            time.sleep(0.05)
        rows = _rows(run)
        code, output = _cli_resume(run, synth_index)
        assert code == 2, output
        [line] = [ln for ln in output.splitlines() if ln.strip()]
        assert f"being written by another eval run (pid {first.pid})" in line, output
        spec = RunSpec(task="t9", mode="oracle", policy="workflow", sports=SPORTS, out_dir=run)
        with pytest.raises(OutputBusyError, match=f"pid {first.pid}"):
            run_eval(spec, settings)
        assert _rows(run) <= rows + 1  # only the first process's next row, if it landed
    finally:
        os.kill(first.pid, signal.SIGKILL)
        first.wait(30)
    # the kernel dropped the dead holder's lock: the resume goes through, each question once
    code, output = _cli_resume(run, synth_index)
    assert code == 0, output
    qids = [line for line in (run / "results.jsonl").read_text().splitlines() if line.strip()]
    assert len(qids) == 3 and read_status(run).state == "done"


def test_a_cli_resume_of_a_run_the_server_runs_is_refused(tmp_path, synth_index, settings):
    service = EvalRunService(settings, EvalSettings(runs_dir=tmp_path / "runs", cache_db=None))
    release = threading.Event()
    orig = T9Task.route

    async def held(self, inst, env, traj):  # the server's run waits until the test is done
        while not release.is_set():
            await asyncio.sleep(0.02)
        return await orig(self, inst, env, traj)

    T9Task.route = held
    try:
        status = service.submit(RunRequest(task="t9", mode="oracle", policy="workflow", limit=2))
        run = tmp_path / "runs" / status.id
        code, output = _cli_resume(run, synth_index)
        assert code == 2 and f"(pid {os.getpid()})" in output, output
    finally:
        release.set()
        T9Task.route = orig
    assert service.wait(status.id, 120)
    done = read_status(run)
    assert done is not None and done.state == "done" and _rows(run) == done.total  # each once
