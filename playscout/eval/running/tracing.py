"""Spans of batch runs: one `eval_question` span per question, the parent of the agent's
`invoke_agent` span (so a question's trace holds its route, its tools and their model calls),
and one `judge` span per verdict the judge step records.

Every such span carries the eval run id, the question id and its viewer page; `session.id` is
the eval run id, so Phoenix and Langfuse show a batch run as one session. The question span
gets the verdict when its route decides it (a multiple-choice pick is right or wrong); answers
that the judge step decides get theirs on the judge's span. Nothing here runs without a tracer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from playscout.agent.tracing import SESSION_ID, VIEWER_URL, content_attributes, viewer_url
from playscout.config import TelemetrySettings
from playscout.eval.storage.records import ResultRow

RUN_ID = "playscout.eval.run_id"
QUESTION_ID = "playscout.eval.question_id"
VERDICT = "playscout.eval.verdict"


def question_attributes(run_id: str, qid: str, telemetry: TelemetrySettings) -> dict[str, Any]:
    """The ids every span of one eval question carries, and its page in the run browser."""
    return {
        RUN_ID: run_id,
        QUESTION_ID: qid,
        SESSION_ID: run_id,
        VIEWER_URL: viewer_url(telemetry.public_url, "runs", run_id, "q", qid),
    }


def route_verdict(row: ResultRow) -> str | None:
    """The verdict a route decided itself (MCQs, yes/no counts); None when the judge decides."""
    if row.correct is None:
        return None
    return "right" if row.correct else "wrong"  # the judges' words (judgements.jsonl)


async def traced_question(
    tracer: Any,
    telemetry: TelemetrySettings,
    run_id: str,
    task: str,
    qid: str,
    prompt: str,
    ask: Callable[[], Awaitable[ResultRow]],
) -> ResultRow:
    """Runs `ask` (one question's route) inside its `eval_question` span, made current so the
    agent's spans become its children; without a tracer, just runs it."""
    if tracer is None:
        return await ask()
    from opentelemetry.trace import Status, StatusCode

    attributes: dict[str, Any] = {
        "openinference.span.kind": "CHAIN",
        "playscout.eval.task": task,
        **question_attributes(run_id, qid, telemetry),
    }
    if telemetry.capture_content:
        attributes |= content_attributes(telemetry.max_content_chars, input=prompt)
    with tracer.start_as_current_span(f"eval_question {task}", attributes=attributes) as span:
        row = await ask()
        span.set_attribute("playscout.status", row.status)
        verdict = route_verdict(row)
        if verdict is not None:
            span.set_attribute(VERDICT, verdict)
        if telemetry.capture_content and row.answer is not None:
            span.set_attributes(content_attributes(telemetry.max_content_chars, output=row.answer))
        if row.status == "error":
            span.set_attribute("error.type", "question_error")
            span.set_status(Status(StatusCode.ERROR, (row.error or "error")[:500]))
    return row


def judge_span(
    tracer: Any,
    telemetry: TelemetrySettings,
    run_id: str,
    row: ResultRow,
    judge: str,
    verdict: str | None,
    reason: str | None,
) -> None:
    """One EVALUATOR span for a verdict the judge step recorded (its own trace: the question's
    ran earlier, maybe in another process); the same ids and session tie them together."""
    if tracer is None:
        return
    attributes: dict[str, Any] = {
        "openinference.span.kind": "EVALUATOR",
        "playscout.eval.judge": judge,
        VERDICT: verdict or "unjudged",
        **question_attributes(run_id, row.qid, telemetry),
    }
    if telemetry.capture_content:
        attributes |= content_attributes(
            telemetry.max_content_chars, input=row.answer or "", output=reason or None
        )
    tracer.start_span(f"judge {judge}", attributes=attributes).end()
