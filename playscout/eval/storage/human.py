"""Human verdicts: a person marks an answer right, wrong or unclear, with a note.

They live beside the run's results in their own file, `human_verdicts.jsonl`, one attributed
record per mark (who, when), appended through the crash-safe JSONL store (eval/storage/store.py: one
locked `O_APPEND` write per record, so concurrent writers never interleave) and never touching
`judgements.jsonl`: the judges' verdicts and a person's stay apart, and reports count them in
separate columns. The latest mark per question wins; earlier ones stay in the file as history.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from playscout.eval.storage.store import JsonlStore

HUMAN_VERDICTS = "human_verdicts.jsonl"
HumanVerdictValue = Literal["right", "wrong", "unclear"]
HUMAN_VALUES: tuple[HumanVerdictValue, ...] = HumanVerdictValue.__args__  # type: ignore[attr-defined]
MAX_NOTE = 2000
MAX_BY = 80


class HumanMark(BaseModel):
    """What a person says about one answer; `by` and `at` attribute it."""

    verdict: HumanVerdictValue
    note: str = Field("", max_length=MAX_NOTE)
    by: str = Field(min_length=1, max_length=MAX_BY)
    at: float = Field(description="Unix time the mark was recorded.")


class HumanRecord(HumanMark):
    qid: str


def human_store(run_dir: Path) -> JsonlStore:
    return JsonlStore(Path(run_dir) / HUMAN_VERDICTS, ("qid",))


def record_human_verdict(
    run_dir: Path, qid: str, verdict: HumanVerdictValue, note: str, by: str
) -> HumanRecord:
    """Appends one mark (validated: a bad verdict, an over-long note or an empty `by` raise
    pydantic's ValidationError). The caller checks that `qid` is a question of the run."""
    record = HumanRecord(qid=qid, verdict=verdict, note=note.strip(), by=by.strip(), at=time.time())
    human_store(run_dir).append(record.model_dump())
    return record


def human_verdicts(run_dir: Path) -> dict[str, HumanRecord]:
    """Question id -> its latest mark. A line that is not a mark (edited by hand) is skipped,
    as a torn line is: one bad line must not hide every other mark."""
    out: dict[str, HumanRecord] = {}
    for (qid,), row in human_store(run_dir).latest().items():
        try:
            out[str(qid)] = HumanRecord.model_validate(row)
        except ValidationError:
            continue
    return out


def human_counts(marks: Sequence[HumanMark | None]) -> dict[str, int]:
    """right / wrong / unclear / unmarked over these questions (None: not marked)."""
    found = Counter(m.verdict if m else "unmarked" for m in marks)
    return {k: found.get(k, 0) for k in (*HUMAN_VALUES, "unmarked")}
