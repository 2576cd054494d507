"""`eval run` names its run directory, `eval compare` prints right/wrong changes per question,
`eval export` writes a static run browser; on real runs over the shared synthetic index."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from playscout.cli.main import app
from tests.synthdata import SynthIndex

runner = CliRunner()
NAME = re.compile(r"\d{8}T\d{6}-t9-oracle-workflow(-\d+)?")


@pytest.mark.slow
def test_runs_are_named_compared_and_exported(
    tmp_path: Path, synth_index: SynthIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the default runs directory, var/runs, is relative
    run = ["eval", "run", "--task", "t9", "--mode", "oracle", "--policy", "workflow",
           "--limit", "2", "--index", str(synth_index.index_dir),
           "--corpus", str(synth_index.corpus_dir), "--no-cache"]  # fmt: skip
    for _ in range(2):
        result = runner.invoke(app, run)
        assert result.exit_code == 0, result.output
    dirs = sorted((tmp_path / "var" / "runs").iterdir())
    assert len(dirs) == 2 and all(NAME.fullmatch(d.name) for d in dirs), dirs
    status = orjson.loads((dirs[0] / "status.json").read_bytes())
    assert status["state"] == "done" and status["done"] == status["total"] == 2
    for d in dirs:
        judged = runner.invoke(app, ["eval", "judge", str(d), "--judge", "equivalence"])
        assert judged.exit_code == 0, judged.output
    cmp = runner.invoke(app, ["eval", "compare", str(dirs[0]), str(dirs[1])])
    assert cmp.exit_code == 0, cmp.output
    assert "Right/wrong changes" in cmp.output
    assert "2 questions in both: fixed 0, broken 0" in cmp.output  # the same offline baseline
    export = tmp_path / "export"
    out = runner.invoke(app, ["eval", "export", str(dirs[0]), "--html", str(export)])
    assert out.exit_code == 0, out.output
    assert "exported 2 questions" in out.output
    assert (export / "index.html").read_text().count('src="data/run.js"') == 1
    data = (export / "data" / "run.js").read_text()
    assert data.startswith("window.PLAYSCOUT_STATIC = ") and dirs[0].name in data
    assert len(list((export / "data" / "q").glob("*.js"))) == 2
    bad = runner.invoke(app, ["eval", "export", str(tmp_path), "--html", str(export)])
    assert bad.exit_code == 2 and "not a run directory" in bad.output


def test_compare_prints_every_question_whose_verdict_changed(tmp_path: Path) -> None:
    from tests.serving.runs_data import is_right, write_run

    a = write_run(tmp_path / "runs", "a", 40)
    b = write_run(tmp_path / "runs", "b", 40, flip=1)
    result = runner.invoke(app, ["eval", "compare", str(a), str(b), "--out", str(tmp_path / "c")])
    assert result.exit_code == 0, result.output
    answered = [i for i in range(40) if i % 17 != 5]  # the rest failed in both runs
    fixed = {f"q{i:04d}" for i in answered if not is_right(i, 0) and is_right(i, 1)}
    broken = {f"q{i:04d}" for i in answered if is_right(i, 0) and not is_right(i, 1)}
    printed = dict(re.findall(r"(q\d{4})\W+\w+\W+\w+\W+(fixed|broken)", result.output))
    assert (
        fixed
        and broken
        and printed == {**dict.fromkeys(fixed, "fixed"), **dict.fromkeys(broken, "broken")}
    )
    assert f"40 questions in both: fixed {len(fixed)}, broken {len(broken)}" in result.output


def test_compare_prints_peoples_verdicts_in_their_own_columns(tmp_path: Path) -> None:
    """A person's marks show beside the judge's verdicts, and `eval report` counts them."""
    from playscout.eval.storage.human import record_human_verdict
    from tests.serving.runs_data import write_run

    a = write_run(tmp_path / "runs", "a", 6)
    b = write_run(tmp_path / "runs", "b", 6)
    record_human_verdict(b, "q0002", "unclear", "the gold is ambiguous", "ana")
    result = runner.invoke(app, ["eval", "compare", str(a), str(b), "--out", str(tmp_path / "c")])
    assert result.exit_code == 0, result.output
    assert re.search(r"q0002\W+\w+\W+\w+\W+\w+\W+-\W+unclear", result.output), result.output
    assert "human verdicts A: right 0, wrong 0, unclear 0, unmarked 6" in result.output
    assert "human verdicts B: right 0, wrong 0, unclear 1, unmarked 5" in result.output
    assert (
        "| overall | 0 / 0 / 0 of 0 (unmarked 6) | 0 / 0 / 1 of 1 (unmarked 5) |"
        in (tmp_path / "c" / "report.md").read_text()
    )
