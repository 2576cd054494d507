"""`playscout demo` (what `make demo` runs) ends with the next three commands, and they work
as printed on the demo's own index: an ask, a judged T9 run, and `serve`, whose API then lists
both (so the run browser shows them)."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from playscout.cli.demo import CLIPS_UNSEEN, command_name
from playscout.cli.main import app
from tests.faults.conftest import wait_for
from tests.serving.conftest import answers, free_port

pytestmark = pytest.mark.slow
runner = CliRunner()


def test_the_demo_ends_with_three_commands_that_work_on_its_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dirs = {"PLAYSCOUT_EVAL__RUNS_DIR": tmp_path / "runs",
            "PLAYSCOUT_AGENT__TRAJECTORY_DIR": tmp_path / "asks",
            "PLAYSCOUT_AGENT__SESSION_DB": tmp_path / "s.sqlite"}  # fmt: skip
    for key, value in dirs.items():
        monkeypatch.setenv(key, str(value))
    demo = tmp_path / "demo"
    done = runner.invoke(app, ["demo", "--out", str(demo), "--games", "3"])
    assert done.exit_code == 0, done.output
    lines = done.stdout.splitlines()
    assert lines.count(CLIPS_UNSEEN) >= 1  # beside the clip hits the agent sees
    tail = lines[lines.index("next, on the demo's own index (README, 'Quick tour'):") :]
    commands = [x.strip() for x in tail if x.startswith("   ")]
    assert len(commands) == 3 and len(tail) == 7, tail
    exe = command_name()
    assert exe == ".venv/bin/playscout" or Path(exe).name == "playscout"
    on = f"--index {demo / 'index'} --corpus {demo / 'corpus'} --mode oracle --policy workflow"
    assert all(c.startswith(f"{exe} ") and on in c for c in commands)

    ask, run_and_judge, serve = commands
    for command in (ask, *run_and_judge.split(" && ")):
        args = shlex.split(command)
        assert args[0] == exe
        result = runner.invoke(app, args[1:])
        assert result.exit_code == 0, (command, result.output)

    port = free_port()
    cmd = [sys.executable, "-m", "playscout", *shlex.split(serve)[1:], "--port", str(port)]
    env = {**os.environ, **{k: str(v) for k, v in dirs.items()}}
    server = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    url = f"http://127.0.0.1:{port}"

    try:
        wait_for(lambda: answers(url, server), 180, "server up")
        runs = httpx.get(f"{url}/v1/runs").json()["items"]
        [run] = [r for r in runs if r["id"] == "demo-t9"]
        assert run["judged"] == run["questions"] > 0 and run["accuracy"] is not None
        asks = httpx.get(f"{url}/v1/trajectories").json()
        assert asks["total"] == 1 and asks["items"][0]["question"] == shlex.split(ask)[2]
    finally:
        server.send_signal(signal.SIGINT)
        server.communicate(timeout=60)
