"""The CLI's one error policy, for every sub-app: a user error is one line and exit 2; a bug
keeps its traceback. And `ask`/`search` through the runtime on a real index."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from playscout.cli.errors import user_errors
from playscout.cli.main import app
from playscout.search.backend_api import SearchError
from tests.synthdata import SynthIndex

runner = CliRunner()


def test_user_error_is_one_line_and_a_bug_keeps_its_traceback() -> None:
    probe = typer.Typer()

    @probe.command()
    @user_errors
    def go(bug: bool = False) -> None:
        if bug:
            raise ValueError("a plain ValueError is a bug here")
        raise SearchError("unknown team 'Lakrs' [try: Lakers]")

    user = runner.invoke(probe, [])
    assert user.exit_code == 2
    assert user.output.strip() == "error: unknown team 'Lakrs' [try: Lakers]"  # no markup eaten
    bug = runner.invoke(probe, ["--bug"])
    assert bug.exit_code == 1 and isinstance(bug.exception, ValueError)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ask", "q", "--mode", "video"], "mode must be one of default, oracle, not 'video'"),
        (["ask", "q", "--policy", "human"], "policy must be one of llm, workflow, not 'human'"),
        (["search", "videos", "x", "--mode", "captions"], "mode must be one of default, oracle"),
        (["eval", "run", "--task", "t99"], "unknown task 't99'"),
    ],
)
def test_bad_flags_are_one_line(args: list[str], message: str, synth_index: SynthIndex) -> None:
    if args[0] != "eval":
        args = [*args, "--index", str(synth_index.index_dir)]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    [error] = [line for line in result.output.splitlines() if line.startswith("error: ")]
    assert message in error and "Traceback" not in result.output


def test_missing_index_names_the_fix(tmp_path: Path) -> None:
    result = runner.invoke(app, ["search", "documents", "x", "--index", str(tmp_path / "none")])
    assert result.exit_code == 2
    assert "no index at" in result.output and "playscout index build" in result.output


def test_ask_workflow_oracle_answers_through_the_runtime(
    synth_index: SynthIndex, tmp_path: Path
) -> None:
    traj = tmp_path / "t.jsonl"
    args = ["--index", str(synth_index.index_dir), "--mode", "oracle", "--policy", "workflow"]
    result = runner.invoke(app, ["ask", synth_index.question, *args, "--trajectory", str(traj)])
    assert result.exit_code == 0, result.output
    assert "status: answered" in result.output and traj.is_file()


def test_every_ask_is_recorded_where_the_server_and_run_browser_find_it(
    synth_index: SynthIndex, tmp_path: Path
) -> None:
    """Without --trajectory an ask recorded nothing, and with it the file sat where no server
    looks: now each ask is `agent.trajectory_dir/ID.jsonl`, which the API lists and reads
    (and the run browser shows), and --trajectory FILE is a copy of it."""
    import json

    from fastapi.testclient import TestClient

    from playscout.config import Settings
    from playscout.serving.app import create_app

    traj_dir, copy = tmp_path / "asks", tmp_path / "copy.jsonl"
    flags = ["--index", str(synth_index.index_dir), "--mode", "oracle", "--policy", "workflow",
             "--set", f"agent.trajectory_dir={traj_dir}"]  # fmt: skip
    plain = runner.invoke(app, ["ask", synth_index.question, *flags, "--json"])
    copied = runner.invoke(app, ["ask", synth_index.question, *flags, "--trajectory", str(copy)])
    assert plain.exit_code == copied.exit_code == 0, plain.output + copied.output
    first = json.loads(plain.stdout)
    assert first["trajectory"] == str(traj_dir / f"{first['id']}.jsonl") and first["copy"] is None
    [second] = [p for p in traj_dir.glob("*.jsonl") if p.stem != first["id"]]
    assert second.read_bytes() == copy.read_bytes()
    assert f"/viewer#/asks/{second.stem} (playscout serve)" in copied.stdout
    settings = Settings.model_validate(
        {"index": str(synth_index.index_dir), "agent": {"trajectory_dir": traj_dir}}
    )
    with TestClient(create_app(settings, backend=synth_index.backend)) as c:
        listed = c.get("/v1/trajectories").json()
        assert {t["id"] for t in listed["items"]} == {first["id"], second.stem}
        assert all(t["question"] == synth_index.question for t in listed["items"])
        shown = c.get(f"/v1/trajectories/{first['id']}").json()
        assert shown["events"][-1]["answer"] == first["answer"]


def test_serve_refusing_a_public_bind_prints_no_markup(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PLAYSCOUT_API_KEY", raising=False)
    result = runner.invoke(app, ["serve", "--host", "0.0.0.0"])
    assert result.exit_code == 2
    assert result.output.startswith("error: refusing to bind 0.0.0.0 without an API key")
    assert "[red]" not in result.output and "Traceback" not in result.output
