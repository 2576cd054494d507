"""`playscout eval run --task T --data FILE`: bad input is one `error:` line, exit 2, and the
run directory is never created; `eval tasks` lists each task's formats and needs."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from playscout.cli.main import app
from playscout.eval.tasks.registry import task_names

runner = CliRunner()
P = Path(__file__).parents[1] / "eval" / "published"


def _fails_in_one_line(args: list[str], out: Path) -> str:
    result = runner.invoke(app, ["eval", "run", *args, "--out", str(out), "--no-cache"])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = [x for x in result.output.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert not out.exists()
    return lines[0]


def test_wrong_format(tmp_path: Path) -> None:
    (tmp_path / "qa.json").write_text('{"questions": []}')
    line = _fails_in_one_line(
        ["--task", "t4", "--data", str(tmp_path / "qa.json")], tmp_path / "run"
    )
    assert line == "error: qa.json: expected a JSON list of questions, found an object"


def test_missing_field_is_named(tmp_path: Path) -> None:
    text = (P / "svi_t4_qa.slice.json").read_text().replace('"question_type"', '"kind"', 1)
    (tmp_path / "qa.json").write_text(text)
    line = _fails_in_one_line(
        ["--task", "t4", "--data", str(tmp_path / "qa.json")], tmp_path / "run"
    )
    assert line == "error: qa.json: question 0: field 'question_type': Field required"


def test_truncated_json(tmp_path: Path) -> None:
    text = (P / "svi_t2_basketball_qa_val.example.json").read_text()
    (tmp_path / "t2.json").write_text(text[:100])
    line = _fails_in_one_line(
        ["--task", "t2", "--data", str(tmp_path / "t2.json")], tmp_path / "run"
    )
    assert line.startswith("error: t2.json: not valid JSON (truncated?): unexpected end of data")


def test_unknown_task(tmp_path: Path) -> None:
    data = P / "svi_t2_basketball_qa_val.example.json"
    line = _fails_in_one_line(["--task", "t10", "--data", str(data)], tmp_path / "run")
    assert line.startswith("error: unknown task 't10'; known: ") and ", t1, t2, " in line


def test_data_file_for_another_task(tmp_path: Path) -> None:
    data = P / "svi_t1_basketball_caption_val.example.json"
    line = _fails_in_one_line(["--task", "t2", "--data", str(data)], tmp_path / "run")
    assert line == (
        "error: svi_t1_basketball_caption_val.example.json is a t1 file (T1 captions JSON), "
        "not one t2 reads; t2 reads T2 MCQ JSON (.json)"
    )


def test_an_lcric_match_config_is_not_a_query_file(tmp_path: Path) -> None:
    data = P / "asap_lcric_match_config.example.yaml"
    line = _fails_in_one_line(["--task", "lcric", "--data", str(data)], tmp_path / "run")
    assert (
        line
        == "error: asap_lcric_match_config.example.yaml is a .yaml file; lcric reads LCric queries (.json)"
    )


def test_no_vlm_for_a_video_task(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PLAYSCOUT_QA__VLM__BASE_URL", raising=False)
    data = P / "svi_t2_basketball_qa_val.example.json"
    line = _fails_in_one_line(
        ["--task", "t2", "--data", str(data), "--policy", "workflow"], tmp_path / "run"
    )
    assert "t2 on published data asks a VLM about each item's video, which needs a VLM" in line
    line = _fails_in_one_line(
        ["--task", "t2", "--data", str(data), "--mode", "oracle", "--policy", "workflow"],
        tmp_path / "run",
    )
    assert "oracle mode answers from ground-truth captions, which these files do not carry" in line


def test_a_sport_the_data_does_not_have(tmp_path: Path) -> None:
    data = P / "svi_t4_qa.slice.json"
    vlm = ["--vlm-url", "http://127.0.0.1:9/v1", "--vlm-model", "never-called"]
    line = _fails_in_one_line(
        ["--task", "t4", "--data", str(data), "--sport", "cricket", *vlm], tmp_path / "run"
    )
    assert line == (
        "error: svi_t4_qa.slice.json has no items of cricket (its sports: basketball, hockey, "
        "soccer); leave out --sport for all"
    )


def test_missing_data_or_media_path(tmp_path: Path) -> None:
    line = _fails_in_one_line(
        ["--task", "t2", "--data", str(tmp_path / "nope.json")], tmp_path / "run"
    )
    assert line == f"error: {tmp_path / 'nope.json'}: data file not found"
    data = P / "svi_t2_basketball_qa_val.example.json"
    line = _fails_in_one_line(
        ["--task", "t2", "--data", str(data), "--media", str(tmp_path / "m")], tmp_path / "run"
    )
    assert line == f"error: {tmp_path / 'm'}: media folder not found"


def test_eval_tasks_lists_formats_and_needs() -> None:
    result = runner.invoke(app, ["eval", "tasks"])
    assert result.exit_code == 0
    text = result.output
    for name in task_names():
        assert f"\n{name}  " in f"\n{text}"
    assert (
        "T4 qa.json (.json file): [{league, game_id, question_type, question, answer, video_path}]"
        in text
    )
    assert "GameplayQA qa.csv (.csv file)" in text and "GameplayQA generator export" in text
    assert text.count("written from the paper:") == 2  # STARBench, LCric
    assert "needs: video files (required" in text and "a corpus and its index (required" in text
    assert (
        "stand-in: real tracks from the data" in text
        and "stand-in: the real clip stands in" in text
    )
