"""Spans of batch runs on the synthetic index (workflow policy, offline), to the SDK's
in-memory exporter: each question is an `eval_question` span holding the agent's run, with
the eval run id, the question id, the session and the viewer link; a route that decides its
own verdict (T2's multiple choice) puts it there, the judge step puts its verdicts on `judge`
spans."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from playscout.config import TelemetrySettings
from playscout.config.presets import DEFAULT_EVAL_PRESET
from playscout.eval import RunSpec, run_eval
from playscout.eval.judging import EquivalenceJudge
from playscout.eval.running.judge import judge_run
from playscout.eval.storage.store import load_results
from playscout.runtime import Runtime

pytest.importorskip("opentelemetry.sdk.trace")
from tests.tracing import memory_tracer

SPORTS = ("basketball",)  # the shared synthetic index's sport


@pytest.fixture
def traced() -> Iterator[tuple[Any, Any]]:
    with memory_tracer() as pair:
        yield pair


def traced_run(task: str, tmp_path, settings, synth_backend, tracer, **spec: Any) -> Any:
    run = tmp_path / "run-1"
    runtime = Runtime.from_settings(
        settings,
        backend=synth_backend,
        need_llm=False,
        default_preset=DEFAULT_EVAL_PRESET,
        tracer=tracer,
    )
    run_spec = RunSpec(
        task=task, mode="oracle", policy="workflow", sports=SPORTS, out_dir=run, **spec
    )
    run_eval(run_spec, settings, runtime=runtime)
    return run


def test_batch_questions_are_traces_with_their_ids(
    tmp_path, settings, eval_settings, synth_backend, traced
) -> None:
    tracer, exporter = traced
    settings = settings.model_copy(update={"eval": eval_settings})
    run = traced_run("t9", tmp_path, settings, synth_backend, tracer, concurrency=2)
    rows = load_results(run)
    spans = list(exporter.get_finished_spans())
    questions = {s.attributes["playscout.eval.question_id"]: s for s in spans if s.parent is None}
    assert set(questions) == {r.qid for r in rows}
    for row in rows:
        q = questions[row.qid]
        assert q.name == "eval_question t9"
        assert q.attributes["playscout.eval.run_id"] == "run-1"
        assert q.attributes["session.id"] == "run-1"
        assert q.attributes["playscout.viewer.url"] == f"/viewer#/runs/run-1/q/{row.qid}"
        assert q.attributes["playscout.status"] == row.status
        assert "playscout.eval.verdict" not in q.attributes  # the judge decides T9's
        [agent] = [s for s in spans if s.parent and s.parent.span_id == q.context.span_id]
        assert agent.name == "invoke_agent playscout-agent"
        tools = [s for s in spans if s.parent and s.parent.span_id == agent.context.span_id]
        assert tools and all(s.attributes["gen_ai.tool.call.id"] for s in tools)
        assert {s.context.trace_id for s in (q, agent, *tools)} == {q.context.trace_id}

    exporter.clear()
    stats = judge_run(run, EquivalenceJudge(), tracer=tracer, telemetry=TelemetrySettings())
    judged = {s.attributes["playscout.eval.question_id"]: s for s in exporter.get_finished_spans()}
    assert set(judged) == {r.qid for r in rows} and stats["judged_now"] == len(rows)
    for span in judged.values():
        assert span.name == "judge equivalence"
        assert span.attributes["openinference.span.kind"] == "EVALUATOR"
        assert span.attributes["playscout.eval.run_id"] == span.attributes["session.id"] == "run-1"
        assert span.attributes["playscout.eval.verdict"] in ("right", "wrong", "unjudged")
    verdicts = [s.attributes["playscout.eval.verdict"] for s in judged.values()]
    assert verdicts.count("right") == stats["right"]
    assert verdicts.count("wrong") == stats["wrong"]


def test_a_route_verdict_is_on_the_question_span(
    tmp_path, settings, eval_settings, synth_backend, traced
) -> None:
    tracer, exporter = traced
    settings = settings.model_copy(update={"eval": eval_settings})
    run = traced_run("t2", tmp_path, settings, synth_backend, tracer, limit=2)
    rows = {r.qid: r for r in load_results(run)}
    questions = [s for s in exporter.get_finished_spans() if s.name == "eval_question t2"]
    assert len(questions) == len(rows) > 0
    for span in questions:
        row = rows[span.attributes["playscout.eval.question_id"]]
        assert row.correct is not None
        expected = "right" if row.correct else "wrong"
        assert span.attributes["playscout.eval.verdict"] == expected
