"""Typed result rows and run specs against files written before they existed: the samples
under samples/results_v1.jsonl and samples/run_v1/ were written by the untyped runner (one row
per task, and a T9 run with an error row), and must load, score, judge, report and resume
unchanged. run_v1's question, gold and meta values are those of today's test corpus (a resume
refuses a run whose questions changed: eval/running/fingerprint.py); its rows' format is the
old one."""

from __future__ import annotations

import json
import shutil
from collections import defaultdict
from pathlib import Path

import pytest
from pydantic import ValidationError

from playscout.config import DEFAULT_MODE, DEFAULT_POLICY
from playscout.eval import Outcome, ResultRow, RunError, RunSpec, run_eval
from playscout.eval.judging import EquivalenceJudge
from playscout.eval.results.report import write_report
from playscout.eval.running.judge import judge_run
from playscout.eval.storage.store import load_results, results_store
from playscout.eval.tasks.registry import get_task

SPORTS = ("basketball",)  # the shared synthetic index's sport

S = Path(__file__).parents[1] / "samples"
TASK_OF = {"t1": "t1", "t2": "t2", "t3": "t3", "t4": "t4", "t5": "t5", "t6": "t6", "t7": "t7",
           "t8": "t8", "gqa": "gameplayqa", "star": "starbench", "lcric": "lcric"}  # fmt: skip


def _v1_lines() -> list[dict]:
    return [json.loads(x) for x in (S / "results_v1.jsonl").read_text().splitlines()]


def test_every_task_row_round_trips_to_the_same_json() -> None:
    for line in _v1_lines():
        row = ResultRow.model_validate(line)
        assert row.to_record() == line, line["qid"]
        assert json.loads(row.model_dump_json(exclude_unset=True)) == line


def test_old_rows_score_by_task() -> None:
    by_task: dict[str, list[ResultRow]] = defaultdict(list)
    for line in _v1_lines():
        by_task[TASK_OF[line["qid"].split("_")[0]]].append(ResultRow.model_validate(line))
    assert len(by_task) == 11
    for name, rows in by_task.items():
        assert get_task(name).score(rows), name
    (t3,) = by_task["t3"]
    assert t3.rank is not None and t3.pool_size and t3.answer is not None


def test_old_run_loads_judges_and_reports(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(S / "run_v1", run)
    rows = load_results(run)
    assert [r.status for r in rows] == ["answered", "error", "answered"]
    err = rows[1]
    assert err.answer is None and err.error and "model server down" in err.error
    assert err.traceback and err.tool_calls == {} and err.turns == 0
    assert rows[0].tool_calls == {"search_documents": 1, "search_videos": 1, "video_qa": 1}
    assert judge_run(run, EquivalenceJudge())["judged_now"] == 3
    rep = write_report([run], plots=False)["summaries"][0]
    assert rep["accuracy"]["overall"]["n"] == 3 and rep["statuses"] == {"answered": 2, "error": 1}
    assert rep["tool_calls_per_question"]["search_documents"] == pytest.approx(2 / 3)


def test_old_run_resumes_and_retries(tmp_path, settings, eval_settings, synth_backend) -> None:
    run = tmp_path / "run"
    shutil.copytree(S / "run_v1", run)
    before = (run / "results.jsonl").read_bytes()
    spec = RunSpec(
        task="t9", mode="oracle", policy="workflow", sports=SPORTS, concurrency=2, out_dir=run
    )
    settings = settings.model_copy(update={"eval": eval_settings})
    with pytest.raises(RunError, match="preset='extended', not 'paper'"):
        run_eval(spec, settings, backend=synth_backend)  # runs before presets were `extended`
    settings = settings.model_copy(update={"preset": "extended"})
    s = run_eval(spec, settings, backend=synth_backend)
    assert (s.total, s.skipped, s.ran) == (3, 3, 0)
    assert (run / "results.jsonl").read_bytes() == before
    s = run_eval(spec.model_copy(update={"retry_failed": True}), settings, backend=synth_backend)
    assert s.ran == 1
    assert (run / "results.jsonl").read_bytes().startswith(before)  # appended, not rewritten
    retried = {r.qid: r for r in load_results(run)}["ba_000001"]
    assert retried.status != "error" and retried.attempt == 2 and retried.traceback is None
    assert json.loads((run / "run.json").read_text())["resumes"]


def test_routes_cannot_invent_fields_but_readers_keep_them() -> None:
    with pytest.raises(ValidationError):
        Outcome(status="answered", anwser="typo")  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        Outcome(status="maybe")  # type: ignore[arg-type]
    line = {**_v1_lines()[0], "from_a_later_version": [1, 2]}
    assert ResultRow.model_validate(line).to_record() == line


def test_row_keeps_only_the_keys_its_route_set() -> None:
    rec = Outcome(status="answered", answer="42").updated(choice=1, correct=True)
    assert rec.choice == 1
    with pytest.raises(ValidationError):
        rec.updated(choice="first")
    row = ResultRow.of(
        ResultRow.model_validate(_v1_lines()[0]),
        Outcome(status="error", error="RuntimeError: x", wall_s=0.1),
    )
    assert "rank" not in row.to_record() and row.to_record()["answer"] is None


def test_a_row_that_is_not_a_result_is_skipped(tmp_path: Path) -> None:
    """As a torn line is: the question's earlier row counts, else it has none (and runs again)."""
    store = results_store(tmp_path)
    good = _v1_lines()[0]
    store.records.append(good)
    store.records.append({**good, "turns": "many"})  # valid JSON, wrong type: a later row
    store.records.append({"qid": "b", "status": "answered"})  # no question, gold, trajectory
    store.records.append({"status": "answered"})  # no question id at all
    assert [r.qid for r in load_results(tmp_path)] == [good["qid"]]
    assert load_results(tmp_path)[0].turns == good["turns"]
    store.latest()
    assert len(store.skipped) == 3
    assert store.skipped[1].startswith("the row for question 'b' is not a result row")


def test_run_spec_defaults() -> None:
    spec = RunSpec(out_dir=Path("r"), sports=SPORTS)
    assert (spec.mode, spec.policy, spec.task) == (DEFAULT_MODE, DEFAULT_POLICY, "t9")
    for bad in ({"mode": "both"}, {"concurrency": 0}, {}):
        with pytest.raises(ValidationError):
            RunSpec.model_validate({"out_dir": "r", "sports": SPORTS, **bad} if bad else bad)
    with pytest.raises(ValidationError, match="sports"):  # every choice made: no sport assumed
        RunSpec.model_validate({"out_dir": "r"})
