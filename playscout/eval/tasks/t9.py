"""T9 cross-corpus agentic QA: the corpus' questions through the full agent, scored by a
separate judge step (running/judge.py), so `score` only counts statuses. On the synthetic
corpus (T9Task) the questions are the corpus' question files, with their gold evidence; on a
published questions file (T9Published) they are that file's, over the corpus."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from playscout.corpus import Corpus
from playscout.corpus.models import GoldEvidence, Question
from playscout.eval.errors import DataFormatError, RunError
from playscout.eval.storage.records import Outcome, ResultRow
from playscout.eval.tasks.reading import read_json, records, unique_ids
from playscout.eval.tasks.registry import declare
from playscout.eval.tasks.routes import run_agent
from playscout.eval.tasks.svi import sport_of
from playscout.eval.tasks.task import AGENT_CALLS, Format, Instance, Needs, Task, TaskEnv


def _gold_ids(gold: GoldEvidence | None) -> dict[str, list[str]]:
    """A generated question's gold documents and clips, for the report's evidence counts
    (eval/results/gold_evidence.py); the released questions have none."""
    if gold is None:
        return {}
    return {"gold_doc_ids": list(gold.doc_ids), "gold_clip_ids": list(gold.clip_ids)}


def question_instance(sport: str, q: Question) -> Instance:
    """A corpus-layout question as the runner asks it, with what the report slices by."""
    meta = {"answer_type": q.answer_type, "sources": q.sources, **_gold_ids(q.gold)}
    return Instance(id=q.id, sport=sport, prompt=q.question, gold=q.answer, meta=meta)


class T9Task(Task):
    name = "t9"
    description = "Cross-corpus agentic QA (SVI-Bench T9): documents + videos, judged answers."
    calls = AGENT_CALLS
    judged = True

    def empty_sports(self, corpus: Corpus, sports: Sequence[str]) -> list[str]:
        """The sports the corpus has no questions for (a small corpus whose games of a sport
        have no clips): a run that chose its sports itself skips them (usecases/run.py)."""
        return [sport for sport in sports if not corpus.questions(sport)]

    def questions(self, env: TaskEnv, sports: Sequence[str], limit: int | None) -> list[Instance]:
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


def t9_questions(path: Path) -> list[Instance]:
    """questions/{sport}.json of the T9 release layout."""
    items = records(path, read_json(path), Question, "question")
    unique_ids(path, [q.id for q in items])
    for i, q in enumerate(items):
        clip_fields = sorted({"video", "options", "conversations"} & set(q.model_extra or {}))
        if clip_fields:
            raise DataFormatError(
                f"{path.name}: question {i} has {clip_fields[0]!r}: a clip-task item, not T9"
            )
    sport = sport_of(path.name)
    return [
        Instance(
            q.id,
            q.sport or sport,
            q.question,
            q.answer,
            {"answer_type": q.answer_type, "sources": q.sources},
        )
        for q in items
    ]


class T9Published(Task):
    name = "t9"
    description = "Cross-corpus agentic QA on a questions file over the corpus; judged answers."
    needs = Needs(corpus="required", judge="eval judge (LLM Fig. 42, or deterministic equivalence)")
    judged = True
    calls = T9Task.calls  # the agent: preflight checks its model, the mode's index channels

    def resolve(self, items: list[Instance], env: TaskEnv) -> None:
        if env.corpus is None:
            return
        sports = env.corpus.sports()
        for inst in items:
            if inst.sport not in sports:
                inst.missing = f"sport {inst.sport!r} is not in the corpus ({', '.join(sports)})"

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        return await T9Task().route(inst, env, trajectory)

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        return T9Task().score(records)


T9 = declare(
    "t9",
    metric="answers judged correct by `eval judge` (LLM or deterministic equivalence)",
    generated=T9Task,
    published=(
        Format(
            "T9 questions JSON",
            "questions/{sport}.json: [{id, question, answer}]",
            "SVI-Bench T9 release layout (docs/published-data.md)",
            t9_questions,
            T9Published,
            example="`questions/{sport}.json`",
        ),
    ),
)
