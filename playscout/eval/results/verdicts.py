"""Which answers of a run were right: the judges' verdicts (judgements.jsonl, latest per
question and judge) for judged tasks, the task's own `correct` for the others (MCQs, LCric).
Reports, the run browser and `eval compare` read verdicts through here, so they agree."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from playscout.eval.storage.records import ResultRow
from playscout.eval.storage.store import judgements_store

Verdict = Literal["right", "wrong"]
JUDGE_PREFERENCE = ("llm", "equivalence")


def judgements(run_dir: Path) -> dict[str, dict[str, dict[str, Any]]]:
    """judge -> question id -> its latest judgement record."""
    out: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for (qid, judge), row in judgements_store(run_dir).latest().items():
        out[str(judge)][str(qid)] = row
    return dict(out)


def judge_models(records: dict[str, dict[str, Any]]) -> list[str]:
    """The distinct models recorded on a judge's latest verdicts, in order of first use."""
    return list(dict.fromkeys(str(r["model"]) for r in records.values() if r.get("model")))


def pick_judge(available: dict[str, Any], judge: str | None = None) -> str | None:
    """The judge asked for, else the LLM judge when it ran, else the equivalence judge."""
    if judge is not None:
        return judge
    return next((j for j in JUDGE_PREFERENCE if j in available), None)


@dataclass
class RunVerdicts:
    """The verdicts of one judge over one run (`judge` None: nothing judged yet)."""

    judge: str | None
    records: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def of(cls, run_dir: Path, judge: str | None = None) -> RunVerdicts:
        found = judgements(run_dir)
        chosen = pick_judge(found, judge)
        return cls(chosen, found.get(chosen or "", {}))

    def judged(self, qid: str) -> str | None:
        """The judge's verdict (`right`, `wrong`, or None: not judged or unparseable)."""
        record = self.records.get(qid)
        return record.get("verdict") if record else None

    def verdict(self, row: ResultRow) -> Verdict | None:
        """The verdict the browser and compare show: the judge's for judged rows, the task's
        own scoring for the others."""
        if row.judgeable:
            v = self.judged(row.qid)
            return v if v in ("right", "wrong") else None  # type: ignore[return-value]
        if row.correct is None:
            return None
        return "right" if row.correct else "wrong"

    def models(self) -> list[str]:
        """The models that gave these verdicts (what reports name as the judge), not the one
        configured: a judge that never judged is not named."""
        return judge_models(self.records)

    def reason(self, qid: str) -> str | None:
        record = self.records.get(qid)
        return record.get("reason") if record else None
