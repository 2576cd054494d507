"""T9 cross-corpus agentic QA: the corpus' questions through the full agent; scored by a
separate judge step (judges/), so `score` only counts statuses."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from playscout.corpus import Corpus, Question
from playscout.corpus.models import GoldEvidence
from playscout.eval.errors import RunError
from playscout.eval.records import Outcome, ResultRow
from playscout.eval.tasks.task import AGENT_CALLS, Instance, TaskEnv, run_agent


def _gold_ids(gold: GoldEvidence | None) -> dict[str, list[str]]:
    """A generated question's gold documents and clips, for the report's evidence counts
    (eval/gold_evidence.py); the released questions have none."""
    if gold is None:
        return {}
    return {"gold_doc_ids": list(gold.doc_ids), "gold_clip_ids": list(gold.clip_ids)}


def question_instance(sport: str, q: Question) -> Instance:
    """A corpus-layout question as the runner asks it, with what the report slices by."""
    meta = {"answer_type": q.answer_type, "sources": q.sources, **_gold_ids(q.gold)}
    return Instance(id=q.id, sport=sport, prompt=q.question, gold=q.answer, meta=meta)


class T9Task:
    name = "t9"
    description = "Cross-corpus agentic QA (SVI-Bench T9): documents + videos, judged answers."
    needs_index = True
    calls = AGENT_CALLS
    judged = True

    def empty_sports(self, corpus: Corpus, sports: Sequence[str]) -> list[str]:
        """The sports the corpus has no questions for (a small corpus whose games of a sport
        have no clips): a run that chose its sports itself skips them (usecases/run.py)."""
        return [sport for sport in sports if not corpus.questions(sport)]

    def load(self, env: TaskEnv, sports: Sequence[str], limit: int | None) -> list[Instance]:
        corpus = env.need_corpus()
        out: list[Instance] = []
        for sport in sports:
            qs = corpus.questions(sport)
            if not qs:
                raise RunError(
                    f"{corpus.root}: no questions for {sport}; run `playscout corpus questions`"
                )
            out += [question_instance(sport, q) for q in (qs[:limit] if limit else qs)]
        return out

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        return await run_agent(env, env.ctx(inst.sport), inst.prompt, trajectory)

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        return {"statuses": dict(Counter(r.status for r in records))}
