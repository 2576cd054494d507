"""Reports and plots over real run directories: a t3 run's report (int metric keys), every
question on the timeline, an accuracy axis that reads 0-100, distinct labels for two runs in
one mode. Plots are checked through the figures matplotlib drew, caught just before saving."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from playscout.agent.trajectory import FinalAnswer, JsonlRecorder, ToolCallEvent, TrajectoryWriter
from playscout.config import EvalSettings, Settings
from playscout.eval import RunSpec, run_eval
from playscout.eval.judging import EquivalenceJudge
from playscout.eval.results import plots as plots_module
from playscout.eval.results.report import run_labels, write_report
from playscout.eval.running.judge import judge_run
from playscout.eval.storage.records import ResultRow
from playscout.eval.storage.store import RUN_JSON, results_store, write_json_atomic

SPORTS = ("basketball",)  # the shared synthetic index's sport


def write_run(run: Path, n: int, mode: str = "oracle", unreadable: int | None = None) -> Path:
    """A run directory as the runner leaves it: run.json, n result rows, one trajectory per row
    with one search_documents call (row `unreadable` has no trajectory file)."""
    run.mkdir(parents=True)
    write_json_atomic(run / RUN_JSON, {"task": "t9", "mode": mode, "policy": "workflow"})
    store = results_store(run)
    for i in range(n):
        qid = f"q{i:03d}"
        traj = f"trajectories/{qid}.jsonl"
        if i != unreadable:
            (run / "trajectories").mkdir(exist_ok=True)
            writer = TrajectoryWriter(qid, [JsonlRecorder(run / traj)])
            writer.emit(ToolCallEvent, turn=1, name="search_documents", arguments={"query": "x"})
            writer.emit(FinalAnswer, answer="no", status="answered", turns=1, wall_s=0.1)
            writer.close()
        store.append(
            ResultRow(qid=qid, sport="basketball", question="?", gold="yes", trajectory=traj,
                      status="answered", answer="no", turns=1, tool_calls={"search_documents": 1})
        )  # fmt: skip
    return run


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """File name -> the figure's first axes, as drawn when it was saved."""
    figures: dict[str, Any] = {}
    save = plots_module._save

    def keep(fig: Any, path: Path) -> str:
        figures[path.name] = fig.axes[0]
        return save(fig, path)

    monkeypatch.setattr(plots_module, "_save", keep)
    return figures


def test_t3_report_writes_json(tmp_path: Path, settings: Settings, synth_backend: Any) -> None:
    """t3 used to key recall by K as ints, which crashed report.json; it now writes the
    reference's R@K and MedR."""
    run = tmp_path / "t3"
    spec = RunSpec(task="t3", mode="oracle", policy="workflow", sports=SPORTS, limit=2, out_dir=run)
    settings = settings.model_copy(update={"eval": EvalSettings(cache_db=None)})
    run_eval(spec, settings, backend=synth_backend)
    res = write_report([run])
    report = json.loads((run / "report.json").read_text())
    assert {"R@1", "R@5", "R@10", "MedR"} <= set(report["task_metrics"])
    assert "report.json" in res["files"] and "Task metrics" in (run / "report.md").read_text()


def test_timeline_draws_every_question(tmp_path: Path, drawn: dict[str, Any]) -> None:
    run = write_run(tmp_path / "run", 60, unreadable=7)
    files = write_report([run])["files"]
    pages = sorted(f for f in files if f.startswith("timeline_"))
    assert pages == ["timeline_oracle_workflow.png", "timeline_oracle_workflow_2.png"]
    shown = [t.get_text() for p in pages for t in drawn[p].get_yticklabels()]
    assert shown == [f"q{i:03d}" for i in range(60)]
    assert "questions 51-60 of 60" in drawn[pages[1]].get_title()
    notes = [t.get_text() for t in drawn[pages[0]].texts]
    assert notes == ["trajectory unreadable"]  # q007's row says why it is empty


def test_accuracy_axis_reads_0_to_100(tmp_path: Path, drawn: dict[str, Any]) -> None:
    run = write_run(tmp_path / "run", 4)
    judge_run(run, EquivalenceJudge())  # every answer is wrong: 0 %
    write_report([run])
    assert drawn["accuracy_per_sport.png"].get_ylim() == (0.0, 100.0)
    assert drawn["turns_by_outcome.png"].get_ylim()[0] == 0.0


def test_a_0_percent_chart_still_labels_its_bars_and_the_unjudged(
    tmp_path: Path, drawn: dict[str, Any]
) -> None:
    """An all-wrong run drew an empty frame: each bar now says 0% with its counts, and the
    title the unjudged answers (here 2 of 5 unjudged: no judgement recorded for them)."""
    run = write_run(tmp_path / "run", 5)
    judge_run(run, EquivalenceJudge())
    rows = [json.loads(line) for line in (run / "judgements.jsonl").read_text().splitlines()]
    (run / "judgements.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows[:3]))
    write_report([run])
    ax = drawn["accuracy_per_sport.png"]
    labels = [t.get_text() for t in ax.texts]
    assert labels == ["0%\n0/5, 2 unjudged", "0%\n0/5, 2 unjudged"]  # basketball, overall
    assert "2 unjudged" in ax.get_title()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["basketball", "overall"]


def test_every_registered_tool_has_its_own_timeline_colour(
    tmp_path: Path, drawn: dict[str, Any]
) -> None:
    """video_qa_oracle was drawn grey as "other": colours come from the tool registry now, so
    no tool (today's or the next) falls through, and the legend names the tools drawn."""
    from playscout.tools.registry import REGISTRY

    colours = plots_module.tool_colours()
    assert set(colours) == set(REGISTRY)
    assert len(set(colours.values())) == len(colours)
    assert plots_module.OTHER not in colours.values()
    run = write_run(tmp_path / "run", 2)
    writer = TrajectoryWriter("q000", [JsonlRecorder(run / "trajectories" / "q000.jsonl")])
    writer.emit(ToolCallEvent, turn=1, name="video_qa_oracle", arguments={"video_ids": ["g_1"]})
    writer.emit(FinalAnswer, answer="no", status="answered", turns=1, wall_s=0.1)
    writer.close()
    write_report([run])
    ax = drawn["timeline_oracle_workflow.png"]
    legend = {t.get_text(): h.get_facecolor() for t, h in zip(
        ax.get_legend().get_texts(), ax.get_legend().legend_handles, strict=True)}  # fmt: skip
    assert set(legend) == {"search_documents", "video_qa_oracle"}
    from matplotlib.colors import to_rgba

    assert legend["video_qa_oracle"] == to_rgba(colours["video_qa_oracle"])
    drawn_colours = {to_rgba(p.get_facecolor()) for p in ax.patches}
    assert to_rgba(colours["video_qa_oracle"]) in drawn_colours
    assert to_rgba(plots_module.OTHER) not in drawn_colours


def test_unjudged_run_has_no_accuracy_plot(tmp_path: Path) -> None:
    """Unjudged answers would plot as 0 %: the plot is left out, the table says 'unjudged'."""
    run = write_run(tmp_path / "run", 3)
    res = write_report([run])
    assert "accuracy_per_sport.png" not in res["files"]
    assert "unjudged 3" in (run / "report.md").read_text()


def test_two_runs_in_one_mode_keep_their_own_labels_and_plots(tmp_path: Path) -> None:
    a = write_run(tmp_path / "a", 3)
    b = write_run(tmp_path / "b", 5)
    res = write_report([a, b], tmp_path / "both")
    timelines = sorted(f for f in res["files"] if f.startswith("timeline_"))
    assert timelines == ["timeline_oracle_workflow_a.png", "timeline_oracle_workflow_b.png"]
    assert all((tmp_path / "both" / f).is_file() for f in timelines)
    md = (tmp_path / "both" / "report.md").read_text()
    stamp = "not comparable: preset extended is not the paper's protocol"
    heads = (
        f"| sport | oracle (workflow) a, preset extended, {stamp} "
        f"| oracle (workflow) b, preset extended, {stamp} |"
    )
    assert heads in md


def test_labels_stay_distinct_when_directory_names_match() -> None:
    runs = [{"mode": "default", "policy": "llm", "run_dir": f"{p}/run"} for p in ("x", "y")]
    assert run_labels(runs) == ["default (llm) run #1", "default (llm) run #2"]
    mixed = [{"mode": m, "policy": "llm", "run_dir": "r"} for m in ("default", "oracle")]
    assert run_labels(mixed) == ["default (llm)", "oracle (llm)"]


def test_t9_report_counts_gold_evidence_reached(
    tmp_path: Path, settings: Settings, synth_backend: Any
) -> None:
    """A real t9 workflow run: each question's gold documents and clips (from the generated
    questions) are checked against what its trajectory searched and gave video_qa."""
    run = tmp_path / "t9"
    spec = RunSpec(task="t9", mode="oracle", policy="workflow", sports=["basketball"], out_dir=run)
    settings = settings.model_copy(update={"eval": EvalSettings(cache_db=None)})
    run_eval(spec, settings, backend=synth_backend)
    rows = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    assert rows and all(r["meta"]["gold_clip_ids"] for r in rows)
    read = 0
    for r in rows:  # the expected count, straight from the trajectory's video_qa arguments
        calls = [json.loads(line) for line in (run / r["trajectory"]).read_text().splitlines()]
        sent = {c for e in calls if e.get("name") == "video_qa_oracle" and e["type"] == "tool_call"
                for c in e["arguments"]["video_ids"]}  # fmt: skip
        read += bool(sent & set(r["meta"]["gold_clip_ids"]))
    write_report([run], plots=False)
    evidence = json.loads((run / "report.json").read_text())["gold_evidence"]
    assert evidence["n"] == len(rows) and evidence["unreadable_trajectories"] == 0
    assert evidence["gold_clip_read"] == read / len(rows)
    assert evidence["gold_clip_found"] >= evidence["gold_clip_read"]
    assert 0 < evidence["gold_document_found"] <= 1
    assert "Gold evidence reached" in (run / "report.md").read_text()


def test_judge_agreement_counts_only_answers_both_judges_decided() -> None:
    """A row without an answer is Wrong for both judges unread, and an abstention is no
    verdict: neither may count as agreement (before, both-unjudged rows agreed)."""
    from playscout.eval.results.report import judge_agreement

    def row(qid: str, answer: str | None) -> ResultRow:
        return ResultRow(qid=qid, sport="basketball", question="?", gold="7", trajectory="",
                         status="answered" if answer else "no_answer", answer=answer)  # fmt: skip

    rows = [row("a", "7"), row("b", "8"), row("c", "9"), row("d", None), row("e", "x")]
    llm = {"a": "right", "b": "right", "c": None, "d": "wrong", "e": None}
    equivalence = {"a": "right", "b": "wrong", "c": "wrong", "d": "wrong", "e": None}
    a = judge_agreement(rows, llm, equivalence)
    assert (a["n"], a["raw_agreement"]) == (2, 0.5)  # a agrees, b does not; c, d, e left out
    assert (a["no_answer"], a["llm_unjudged"], a["equivalence_unjudged"]) == (1, 2, 1)


def test_human_verdicts_are_their_own_column_and_never_the_judges(tmp_path: Path) -> None:
    """A person's marks count in their own table (latest per question wins); the judge's
    accuracy and judgements.jsonl are untouched by them."""
    from playscout.eval.storage.human import record_human_verdict

    run = write_run(tmp_path / "run", 4)
    judge_run(run, EquivalenceJudge())  # all wrong by the judge
    judged = (run / "judgements.jsonl").read_bytes()
    record_human_verdict(run, "q000", "wrong", "first look", "ana")
    record_human_verdict(run, "q000", "right", "the gold is too strict", "ana")  # wins
    record_human_verdict(run, "q001", "unclear", "", "bo")
    summary = write_report([run])["summaries"][0]
    assert summary["human"]["overall"] == {"right": 1, "wrong": 0, "unclear": 1, "unmarked": 2}
    assert summary["accuracy"]["overall"]["correct"] == 0
    assert (run / "judgements.jsonl").read_bytes() == judged
    md = (run / "report.md").read_text()
    assert "## Human verdicts per sport" in md
    assert "| overall | 1 / 0 / 1 of 2 (unmarked 2) |" in md


def test_no_human_table_when_nobody_marked(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", 2)
    write_report([run])
    assert "Human verdicts" not in (run / "report.md").read_text()
