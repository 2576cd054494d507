"""Which questions a run ran: each result row records a fingerprint of its question (text,
gold answer, evidence), so a resume can tell whether the task's questions changed since.

Before, a resume after a question file was edited kept the old text and gold for the
questions already run, ran the new version of the others and still scored questions that were
deleted: two benchmarks in one number, silently. Now such a resume stops with one line naming
the changed and removed ids, unless told to re-run the changed ones (`--rerun-changed`); then
removed questions leave the run (a `removed` record in results.jsonl, the latest per id wins)
and the run is marked mixed in its stamp."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from playscout.eval.storage.records import ResultRow

LOCAL_META = frozenset({"videos", "route"})
"""Meta keys that say where this machine found an item's inputs or how it asked it, not what
the question is: a media folder that moved does not change the benchmark."""
PARTS = ("text", "gold", "evidence")


def _canonical(value: Any) -> bytes:
    option = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY
    return orjson.dumps(value, option=option, default=str)


def _parts(text: str, gold: Any, meta: Mapping[str, Any]) -> dict[str, bytes]:
    evidence = {k: v for k, v in meta.items() if k not in LOCAL_META}
    return {"text": text.encode("utf-8", "surrogatepass"), "gold": _canonical(gold),
            "evidence": _canonical(evidence)}  # fmt: skip


def fingerprint(text: str, gold: Any, meta: Mapping[str, Any]) -> str:
    """A short hash of a question's text, gold answer and evidence (its meta: gold ids, options,
    answer type, sources): equal, the question is the one that ran (`changed_parts` says what
    differs when it is not)."""
    digest = hashlib.sha256()
    for name, part in _parts(text, gold, meta).items():
        digest.update(name.encode() + b"\0" + hashlib.sha256(part).digest())
    return digest.hexdigest()[:16]


def changed_parts(row: ResultRow, text: str, gold: Any, meta: Mapping[str, Any]) -> list[str]:
    """What differs between the question a row ran and the question now. Evidence is compared
    over the keys the row recorded: a key a later playscout adds to every question (rows from
    before it lack it, as rows from before fingerprints do) is not a change of the benchmark."""
    missing = object()
    recorded = {k: meta.get(k, missing) for k in row.meta}
    before, after = _parts(row.question, row.gold, row.meta), _parts(text, gold, recorded)
    return [p for p in PARTS if before[p] != after[p]]


@dataclass
class QuestionChanges:
    """Questions of a run whose text, gold or evidence changed since they ran (id -> which),
    and questions it ran that the task no longer has."""

    changed: dict[str, list[str]] = field(default_factory=dict)
    removed: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.changed or self.removed)

    def line(self, limit: int = 8) -> str:
        out = []
        if self.changed:
            shown = [f"{q} ({', '.join(p)})" for q, p in list(self.changed.items())[:limit]]
            more = f" +{len(self.changed) - limit} more" if len(self.changed) > limit else ""
            out.append(f"{len(self.changed)} changed: {', '.join(shown)}{more}")
        if self.removed:
            more = f" +{len(self.removed) - limit} more" if len(self.removed) > limit else ""
            out.append(f"{len(self.removed)} removed: {', '.join(self.removed[:limit])}{more}")
        return "; ".join(out)


def question_changes(
    previous: Mapping[str, ResultRow],
    current: Iterable[Any],
    every_id: Callable[[], set[str]] | None = None,
) -> QuestionChanges:
    """`previous`: the run's rows by question id; `current`: the task's instances as loaded now
    (id, prompt, gold, meta). A question with a row that is not among them is removed only when
    it is not in `every_id()` either (the task's ids without --limit; None: `current` is all)."""
    found = QuestionChanges()
    now = {inst.id: inst for inst in current}
    for qid, row in previous.items():
        inst = now.get(qid)
        if inst is None or row.fingerprint == fingerprint(inst.prompt, inst.gold, inst.meta):
            continue
        if parts := changed_parts(row, inst.prompt, inst.gold, inst.meta):
            found.changed[qid] = parts
    gone = [qid for qid in previous if qid not in now]
    if gone and every_id is not None:
        known = every_id()
        gone = [qid for qid in gone if qid not in known]
    found.removed = gone
    return found
