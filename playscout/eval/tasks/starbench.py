"""STARBench: weighted rubrics with penalties, multi-turn with the ideal history (each turn
asked after the reference answers, never the model's own), each criterion judged on its own
(judging/criteria.py). On the synthetic corpus (STARBenchTask) the items are made from a
game's facts and asked through the agent; on the paper's item files (STARBenchPublished; no
public file, the format is written from the paper's App. B) the video goes to the VLM."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from playscout.eval.judging.criteria import CriteriaJudge
from playscout.eval.judging.metrics import RubricItem, judged_rubric_score, mean
from playscout.eval.storage.records import Outcome, ResultRow
from playscout.eval.tasks.games import games
from playscout.eval.tasks.reading import NonEmpty, Record, Text, read_json, records, unique_ids
from playscout.eval.tasks.registry import declare
from playscout.eval.tasks.routes import run_agent
from playscout.eval.tasks.task import AGENT_CALLS, Format, Instance, Needs, Task, TaskEnv
from playscout.eval.tasks.video_files import FileTask, ask_video_files

PRIORITY_WEIGHTS = {"high_priority": 5.0, "medium_priority": 3.0, "low_priority": 1.0}
PENALTY_WEIGHT = 5.0  # the App. B.5 prompt gives penalties "negative weights" without a size


class Criterion(BaseModel):
    """A rubric criterion as STARBench App. B.5 writes them."""

    name: NonEmpty
    description: NonEmpty
    category: Literal["high_priority", "medium_priority", "low_priority", "penalty"]
    is_penalty: bool
    weight: float | None = Field(None, gt=0)

    @model_validator(mode="after")
    def _penalty_consistent(self) -> Criterion:
        if self.is_penalty != (self.category == "penalty"):
            raise ValueError("is_penalty must be true exactly when category is 'penalty'")
        return self

    def resolved_weight(self) -> float:
        if self.weight is not None:
            return self.weight
        return PENALTY_WEIGHT if self.is_penalty else PRIORITY_WEIGHTS[self.category]


class StarbenchTurn(BaseModel):
    question: NonEmpty
    answer: NonEmpty  # the ideal answer, which becomes the next turn's history
    rubric: list[Criterion] = Field(min_length=1)


class StarbenchItem(Record):
    """A STARBench item: the paper's question, answer and rubric JSON for one single- or
    multi-turn question set, with its video."""

    id: Text
    video: NonEmpty
    turns: list[StarbenchTurn] = Field(min_length=1)
    task: str | None = None


def starbench_items(path: Path) -> list[Instance]:
    items = records(path, read_json(path), StarbenchItem)
    unique_ids(path, [e.id for e in items])
    out = []
    for e in items:
        turns: list[dict[str, Any]] = [
            {
                "question": t.question,
                "ideal": t.answer,
                "rubric": [
                    {**c.model_dump(exclude={"weight"}), "weight": c.resolved_weight()}
                    for c in t.rubric
                ],
            }
            for t in e.turns
        ]
        out.append(
            Instance(
                e.id,
                "video",
                turns[0]["question"],
                turns,
                {
                    "video_refs": [e.video],
                    "multi_turn": len(turns) > 1,
                    "task": e.task or "unknown",
                },
            )
        )
    return out


async def rubric_turns(
    env: TaskEnv, inst: Instance, ask: Callable[[str], Awaitable[Outcome]]
) -> Outcome:
    """STARBench's protocol over any way of asking (`ask(prompt)`): each turn asked after the
    ideal history (the reference answers, never the model's own), each answer checked
    criterion by criterion (judges/criteria.py), the item's score the mean of its turns'."""
    judge = CriteriaJudge(env.judge)
    history = ""
    rec: Outcome | None = None
    answers: list[str | None] = []
    scores: list[float | None] = []
    verdicts: list[list[bool | None]] = []
    for turn in inst.gold:
        rec = await ask(f"{history}{turn['question']}")
        checks = await asyncio.gather(
            *(judge.criterion(turn["question"], rec.answer, c) for c in turn["rubric"])
        )
        score, _ = judged_rubric_score([RubricItem(**c) for c in turn["rubric"]], checks)
        answers.append(rec.answer)
        scores.append(score)
        verdicts.append(list(checks))
        history += f"Q: {turn['question']}\nA: {turn['ideal']}\n"
    assert rec is not None, "a STARBench item has at least one turn"
    return rec.updated(
        answer=" | ".join(a or "-" for a in answers),
        turn_scores=scores,
        criteria=verdicts,
        score=None if None in scores else mean([s for s in scores if s is not None]),
        judge=judge.name,
    )


def rubric_summary(records: list[ResultRow]) -> dict[str, Any]:
    """Mean rubric score (%) over judged items, with what the judge left open."""
    scored = [r.score for r in records if r.score is not None]
    unchecked = sum(
        v is None
        for r in records
        for turn, checks in zip(r.gold or [], r.criteria or [], strict=False)
        for c, v in zip(turn["rubric"], checks, strict=False)
        if c.get("is_penalty")
    )
    return {
        "rubric_score_pct": None if not scored else 100 * (mean(scored) or 0.0),
        "unjudged_items": len(records) - len(scored),
        "penalties_unchecked": unchecked,
        "judges": dict(Counter(r.judge or "none" for r in records)),
    }


class STARBenchTask(Task):
    name = "starbench"
    description = (
        "STARBench-style rubric scoring with penalties; multi-turn with the ideal history."
    )
    calls = AGENT_CALLS

    def questions(self, env: TaskEnv, sports: Sequence[str], limit: int | None) -> list[Instance]:
        out: list[Instance] = []
        for sport in sports:
            for g in games(env.need_corpus(), sport, limit or 2):
                h, a = g.final
                loser = g.away if g.winner == g.home else g.home
                turns: list[dict[str, Any]] = [
                    {
                        "question": f"Who won {g.label()}?",
                        "ideal": f"The {g.winner or 'teams drew'}.",
                        "rubric": [
                            RubricItem(
                                name="winner",
                                description=g.winner or "draw",
                                category="high_priority",
                                weight=5,
                            ),
                            RubricItem(
                                name="wrong winner",
                                description=f"{loser} won",
                                category="penalty",
                                weight=5,
                                is_penalty=True,
                            ),
                        ],
                    },
                    {
                        "question": "What was the final score?",
                        "ideal": f"{h}-{a}.",
                        "rubric": [
                            RubricItem(
                                name="score",
                                description=f"{max(h, a)}-{min(h, a)}",
                                category="high_priority",
                                weight=5,
                            ),
                            RubricItem(
                                name="date", description=g.date, category="low_priority", weight=1
                            ),
                        ],
                    },
                ]
                out.append(
                    Instance(
                        f"star_{g.game_id}",
                        sport,
                        turns[0]["question"],
                        [{**t, "rubric": [r.model_dump() for r in t["rubric"]]} for t in turns],
                        {"game_id": g.game_id, "multi_turn": True},
                    )
                )
        return out

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        async def ask(prompt: str) -> Outcome:
            return await run_agent(env, env.ctx(inst.sport), prompt, trajectory)

        return await rubric_turns(env, inst, ask)

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        return rubric_summary(records)


class STARBenchPublished(FileTask):
    name = "starbench"
    description = (
        "STARBench rubric items: each turn after the ideal history, criteria judged one by one."
    )
    needs = Needs(
        videos="required",
        vlm=True,
        judge="per-criterion judge (eval.judge); text fallback, penalties unchecked, without",
    )

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        async def ask(prompt: str) -> Outcome:
            return await ask_video_files(env, inst, prompt, trajectory)

        return await rubric_turns(env, inst, ask)

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        tasks = Counter(str(r.meta.get("task")) for r in records)
        per_task = {
            t: rubric_summary([r for r in records if str(r.meta.get("task")) == t])[
                "rubric_score_pct"
            ]
            for t in sorted(tasks)
        }
        return {**rubric_summary(records), "per_task": per_task}


STARBENCH = declare(
    "starbench",
    metric="weighted rubric score (%), penalties subtracted",
    generated=STARBenchTask,
    published=(
        Format(
            "STARBench items",
            "[{id, video, task, turns [{question, answer, rubric "
            "[{name, description, category, is_penalty}]}]}]",
            "STARBench paper App. B (question, answer and rubric JSON per item); no public file",
            starbench_items,
            STARBenchPublished,
            from_paper=True,
            example="a JSON list",
        ),
    ),
)
