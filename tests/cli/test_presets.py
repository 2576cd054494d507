"""`--preset` on the commands: an unknown preset, a preset file with an unknown field and a
preset naming a tool the registry lacks are each one `error:` line (exit 2); a good preset is
recorded in run.json and named in every report table heading."""

from __future__ import annotations

from pathlib import Path

import orjson
from typer.testing import CliRunner

from playscout.cli.main import app
from tests.synthdata import SynthIndex

runner = CliRunner()
EXTENDED = Path(__file__).parents[2] / "playscout/presets/extended.yaml"


def _error_line(args: list[str]) -> str:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    [line] = [x for x in result.output.splitlines() if x.startswith("error: ")]
    return line


def _ask(synth_index: SynthIndex, preset: str) -> list[str]:
    return ["ask", "Who won?", "--index", str(synth_index.index_dir), "--policy", "workflow",
            "--mode", "oracle", "--preset", preset]  # fmt: skip


def test_unknown_preset(synth_index: SynthIndex) -> None:
    line = _error_line(_ask(synth_index, "papr"))
    assert line == (
        "error: unknown preset 'papr'; use one of extended, paper or a preset file path"
    )


def test_preset_file_with_an_unknown_field(synth_index: SynthIndex, tmp_path: Path) -> None:
    bad = tmp_path / "mine.yaml"
    bad.write_text(EXTENDED.read_text().replace("judge_prompt:", "judge_promt:"))
    assert _error_line(_ask(synth_index, str(bad))) == (
        f"error: preset file {bad}: judge_promt: unknown field"
    )


def test_preset_naming_a_tool_not_in_the_registry(synth_index: SynthIndex, tmp_path: Path) -> None:
    bad = tmp_path / "mine.yaml"
    bad.write_text(EXTENDED.read_text().replace("{name: calculator}", "{name: abacus}"))
    line = _error_line(_ask(synth_index, str(bad)))
    assert line.startswith("error: unknown tool 'abacus'; known: calculator, ")
    # eval judge offers no tools, yet refuses the same file with the same line
    run = tmp_path / "run"
    assert _error_line(["eval", "judge", str(run), "--preset", "paper"]).startswith(
        f"error: {run} is not a run directory (no run.json)"
    )
    run.mkdir()
    (run / "run.json").write_bytes(orjson.dumps({"task": "t9", "preset": {"name": "paper"}}))
    assert _error_line(["eval", "judge", str(run), "--preset", str(bad)]) == line


def test_eval_run_records_the_preset_and_the_report_names_it(
    synth_index: SynthIndex, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    base = ["--index", str(synth_index.index_dir), "--corpus", str(synth_index.corpus_dir),
            "--policy", "workflow", "--mode", "oracle", "--limit", "1", "--no-cache"]  # fmt: skip
    result = runner.invoke(app, ["eval", "run", "--out", str(run), *base])
    assert result.exit_code == 0, result.output
    meta = orjson.loads((run / "run.json").read_bytes())
    assert meta["preset"]["name"] == "paper" and meta["preset"]["deviations"] == []
    # the settings the run used, the preset applied (not the unset defaults)
    assert meta["settings"]["search"]["caption_search"] == "dense"
    assert meta["settings"]["agent"]["prune_context"] is False
    assert runner.invoke(app, ["eval", "judge", str(run)]).exit_code == 0
    report = runner.invoke(app, ["eval", "report", str(run)]).output
    headings = [line for line in report.splitlines() if line.startswith("#")]
    assert headings and all("preset paper" in h for h in headings), headings
    other = tmp_path / "other"
    result = runner.invoke(
        app, ["eval", "run", "--out", str(other), *base, "--set", "agent.max_llm_calls=5"]
    )
    meta = orjson.loads((other / "run.json").read_bytes())
    assert meta["preset"]["deviations"] == ["agent.max_llm_calls=5 (preset 30)"]
    runner.invoke(app, ["eval", "judge", str(other)])
    report = runner.invoke(app, ["eval", "report", str(other)]).output
    assert "preset paper +1 deviation" in report
    assert "not comparable to SVI-Bench Table 15" in report
