"""Two runs on the same questions: which answers became right or wrong (`eval compare`, the
runs API and the run browser print the same table), and, for one question, the first turn at
which the two agents acted differently."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, Literal

import orjson
from pydantic import BaseModel, Field

from playscout.agent.trajectory import Event, FinalAnswer, ToolCallEvent
from playscout.eval.results.catalog import Page, QuestionRow, paginate
from playscout.eval.results.verdicts import Verdict
from playscout.eval.storage.human import HUMAN_VALUES

Change = Literal["fixed", "broken", "both_right", "both_wrong", "unjudged"]
CHANGES: tuple[Change, ...] = Change.__args__  # type: ignore[attr-defined]


class CompareRow(BaseModel):
    qid: str
    sport: str
    question: str
    gold: str | None
    a: Verdict | None
    b: Verdict | None
    answer_a: str | None
    answer_b: str | None
    change: Change
    human_a: str | None = Field(None, description="A person's verdict on A's answer, if any.")
    human_b: str | None = None


class Comparison(Page[CompareRow]):
    a: str
    b: str
    counts: dict[str, int] = Field(description="Questions in both runs, per change.")
    only_a: int = Field(description="Questions only run A has.")
    only_b: int
    human: dict[str, dict[str, int]] = Field(
        default_factory=dict,
        description="People's verdicts in each run (a, b) over these questions, apart from the judge's.",
    )


def change_of(a: Verdict | None, b: Verdict | None) -> Change:
    if a is None or b is None:
        return "unjudged"
    if a == b:
        return "both_right" if a == "right" else "both_wrong"
    return "fixed" if b == "right" else "broken"


def compare_rows(rows_a: Sequence[QuestionRow], rows_b: Sequence[QuestionRow]) -> list[CompareRow]:
    """The questions both runs have, in run A's order."""
    by_b = {r.qid: r for r in rows_b}
    out = []
    for ra in rows_a:
        rb = by_b.get(ra.qid)
        if rb is None:
            continue
        out.append(
            CompareRow(
                qid=ra.qid,
                sport=ra.sport,
                question=ra.question,
                gold=ra.gold,
                a=ra.verdict,
                b=rb.verdict,
                answer_a=ra.answer,
                answer_b=rb.answer,
                change=change_of(ra.verdict, rb.verdict),
                human_a=ra.human.verdict if ra.human else None,
                human_b=rb.human.verdict if rb.human else None,
            )
        )
    return out


def comparison(
    a: str,
    b: str,
    rows_a: Sequence[QuestionRow],
    rows_b: Sequence[QuestionRow],
    change: Change | None = None,
    offset: int = 0,
    limit: int = 100,
) -> Comparison:
    rows = compare_rows(rows_a, rows_b)
    counts = Counter(r.change for r in rows)
    keep = [r for r in rows if change is None or r.change == change]
    page = paginate(keep, offset, limit)
    common = len(rows)
    return Comparison(
        **page.model_dump(),
        a=a,
        b=b,
        counts={c: counts.get(c, 0) for c in CHANGES},
        only_a=len(rows_a) - common,
        only_b=len(rows_b) - common,
        human={
            "a": _counts([r.human_a for r in rows]),
            "b": _counts([r.human_b for r in rows]),
        },
    )


def _counts(verdicts: list[str | None]) -> dict[str, int]:
    found = Counter(v or "unmarked" for v in verdicts)
    return {k: found.get(k, 0) for k in (*HUMAN_VALUES, "unmarked")}


def _actions(events: Sequence[Event]) -> list[tuple[int, Any]]:
    """(turn, what the agent did) in order: each tool call with its arguments, then the
    final answer."""
    out: list[tuple[int, Any]] = []
    for e in events:
        if isinstance(e, ToolCallEvent):
            args = (
                e.arguments
                if isinstance(e.arguments, str)
                else orjson.dumps(e.arguments, option=orjson.OPT_SORT_KEYS).decode()
            )
            out.append((e.turn, ("tool", e.name, args)))
        elif isinstance(e, FinalAnswer):
            out.append((e.turns, ("answer", e.answer, e.status)))
    return out


def first_divergent_turn(a: Sequence[Event], b: Sequence[Event]) -> int | None:
    """The first turn at which the two runs called a different tool, with different
    arguments, or answered differently; None when they acted the same throughout."""
    acts_a, acts_b = _actions(a), _actions(b)
    for (turn_a, act_a), (turn_b, act_b) in zip(acts_a, acts_b, strict=False):
        if act_a != act_b:
            return min(turn_a, turn_b)
    if len(acts_a) == len(acts_b):
        return None
    longer = acts_a if len(acts_a) > len(acts_b) else acts_b
    return longer[min(len(acts_a), len(acts_b))][0]
