"""STARBench rubric scoring: weighted criteria, satisfied ones add their weight, violated
penalties subtract theirs; the score is the sum over the maximum attainable (the positive
weights), clipped to [0, 1]. The paper's formula lost its minus sign in extraction; this is the
reading its prompt (weights 5/3/1, negative penalties) supports."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel


class RubricItem(BaseModel):
    name: str
    description: str = ""
    category: str = "medium_priority"  # high_priority | medium_priority | low_priority | penalty
    weight: float = 3.0
    is_penalty: bool = False


def rubric_score(items: Sequence[RubricItem], hits: Sequence[bool]) -> float:
    """`hits[i]`: criterion satisfied, or for a penalty: the penalty applies."""
    if len(items) != len(hits):
        raise ValueError("one hit per rubric item")
    attainable = sum(abs(i.weight) for i in items if not i.is_penalty)
    if attainable <= 0:
        return 0.0
    got = sum(
        (-abs(i.weight) if i.is_penalty else abs(i.weight))
        for i, h in zip(items, hits, strict=True)
        if h
    )
    return max(0.0, min(1.0, got / attainable))


def judged_rubric_score(
    items: Sequence[RubricItem], verdicts: Sequence[bool | None]
) -> tuple[float | None, int]:
    """`rubric_score` when a judge may abstain (None): (score, penalties left unchecked). The
    score is known only if every positive criterion was judged; an unchecked penalty counts
    as not applied, and the count says how many were (the score is then an upper bound)."""
    if len(items) != len(verdicts):
        raise ValueError("one verdict per rubric item")
    if any(v is None for i, v in zip(items, verdicts, strict=True) if not i.is_penalty):
        return None, sum(v is None for i, v in zip(items, verdicts, strict=True) if i.is_penalty)
    unchecked = sum(v is None for i, v in zip(items, verdicts, strict=True) if i.is_penalty)
    return rubric_score(items, [bool(v) for v in verdicts]), unchecked
