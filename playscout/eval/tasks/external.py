"""GameplayQA-, STARBench- and LCric-style tasks on synthetic sports data (their published
formats: eval/published). Each keeps its paper's metric: GameplayQA accuracy per
distractor and entity type (multi-video items included), STARBench weighted rubrics with
penalties over a multi-turn ideal history, each criterion judged on its own, LCric binary / multiple-choice accuracy and
regression L1."""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from playscout.eval.judging.criteria import CriteriaJudge
from playscout.eval.judging.metrics import (
    RubricItem,
    accuracy,
    grouped_accuracy,
    judged_rubric_score,
    mean,
    mean_abs_error,
)
from playscout.eval.judging.text import numbers
from playscout.eval.storage.records import Outcome, ResultRow
from playscout.eval.tasks.gamefacts import games
from playscout.eval.tasks.synthetic import (
    clip_facts,
    pick_option,
    qa_answer,
    render_options,
    rng_for,
)
from playscout.eval.tasks.task import AGENT_CALLS, Instance, TaskEnv, direct_call, run_agent


class GameplayQATask:
    name = "gameplayqa"
    description = "GameplayQA-style MCQ with typed distractors, single and multi-video."
    needs_index = True
    calls = frozenset({"video_qa"})
    judged = False

    def load(self, env: TaskEnv, sports: Sequence[str], limit: int | None) -> list[Instance]:
        out: list[Instance] = []
        for sport in sports:
            facts = clip_facts(env.need_corpus(), sport, max_games=2)
            for i, f in enumerate(facts[: limit or 6]):
                ev = f.events[0]
                rng = rng_for(f.clip_id, "gqa")
                other = facts[(i + 7) % len(facts)]
                true = f"{ev.get('player')}: {ev.get('type')}"
                distractors = {
                    "role": f"{other.events[0].get('player')}: {ev.get('type')}",
                    "lexical": f"{ev.get('player')}: {str(ev.get('type')).replace('made', 'missed') if 'made' in str(ev.get('type')) else str(ev.get('type')) + ' (blocked)'}",
                    "temporal": f"{ev.get('player')}: {other.events[0].get('type')}",
                    "cross_video": f"{other.events[0].get('player')}: {other.events[0].get('type')}",
                }
                multi = i % 2 == 1
                opts = [true, *dict.fromkeys(d for d in distractors.values() if d != true)]
                opts = list(dict.fromkeys(opts))[:4]
                kinds = {o: k for k, o in distractors.items()}
                rng.shuffle(opts)
                vids = [f.clip_id, other.clip_id] if multi else [f.clip_id]
                q = (
                    "Which event happens in Video 1?"
                    if multi
                    else "Which event happens in this clip?"
                ) + f"\n{render_options(opts)}\nAnswer with the letter directly."
                out.append(
                    Instance(
                        f"gqa_{f.clip_id}",
                        sport,
                        q,
                        opts.index(true),
                        {
                            "videos": vids,
                            "options": opts,
                            "entity_type": "OA",
                            "option_kinds": [kinds.get(o, "true") for o in opts],
                            "multi_video": multi,
                        },
                    )
                )
        return out

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        args = {"video_ids": inst.meta["videos"][:1], "query": inst.prompt}
        result, rec = await direct_call(env, env.ctx(inst.sport), "video_qa", args, trajectory)
        answer, _ = qa_answer(result)
        choice = pick_option(answer, inst.meta["options"])
        chosen = inst.meta["option_kinds"][choice] if choice is not None else "no_choice"
        return rec.updated(
            answer=answer, choice=choice, correct=choice == inst.gold, chosen_kind=chosen
        )

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        wrong = [r for r in records if not r.correct]
        errors_by: dict[str, int] = {}
        for r in wrong:
            kind = r.chosen_kind or "?"
            errors_by[kind] = errors_by.get(kind, 0) + 1
        return {
            "accuracy": accuracy([bool(r.correct) for r in records]),
            "per_entity_type": grouped_accuracy(
                [(r.meta["entity_type"], bool(r.correct)) for r in records]
            ),
            "per_video_count": grouped_accuracy(
                [("multi" if r.meta["multi_video"] else "single", bool(r.correct)) for r in records]
            ),
            "errors_by_distractor_type": errors_by,
        }


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


class STARBenchTask:
    name = "starbench"
    description = (
        "STARBench-style rubric scoring with penalties; multi-turn with the ideal history."
    )
    needs_index = True
    calls = AGENT_CALLS
    judged = False

    def load(self, env: TaskEnv, sports: Sequence[str], limit: int | None) -> list[Instance]:
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


_YES = re.compile(r"\b(yes|true)\b", re.I)
_NO = re.compile(r"\b(no|false)\b", re.I)


def lcric_prediction(kind: str, answer: str | None, prompt: str) -> bool | int | float | None:
    """What an answer says: yes/no (binary), a count, as an option letter when the prompt lists
    options (multiple), or a total (regression); None when it says none."""
    ans = answer or ""
    if kind == "binary":
        return True if _YES.search(ans) else False if _NO.search(ans) else None
    nums = numbers(ans)
    if kind == "multiple":
        letter = pick_option(ans, [str(i) for i in range(5)]) if "A:" in prompt else None
        return letter if letter is not None else (int(nums[0]) if nums else None)
    return nums[0] if nums else None


class LCricTask:
    name = "lcric"
    description = (
        "LCric-style count queries over play-by-play: binary, multiple choice, regression."
    )
    needs_index = True
    calls = AGENT_CALLS
    judged = False

    def load(self, env: TaskEnv, sports: Sequence[str], limit: int | None) -> list[Instance]:
        out: list[Instance] = []
        for sport in sports:
            for g in games(env.need_corpus(), sport, limit or 2):
                p1 = [e for e in g.events if e.get("period") == 1]
                kinds = sorted({str(e.get("type")) for e in p1})
                if not kinds:
                    continue
                kind = kinds[rng_for(g.game_id, "lcric").randrange(len(kinds))]
                n = sum(str(e.get("type")) == kind for e in p1)
                lo = max(1, n - 1)
                where = f"in period 1 of {g.label()}"
                out.append(
                    Instance(
                        f"lcric_bin_{g.game_id}",
                        sport,
                        f"Did '{kind}' happen at least {lo} times {where}? Answer yes or no.",
                        True,
                        {"kind": "binary"},
                    )
                )
                opts = [str(i) for i in range(10)]
                out.append(
                    Instance(
                        f"lcric_mc_{g.game_id}",
                        sport,
                        f"How many times did '{kind}' happen {where}?\n{render_options(opts[:5])}"
                        if n < 5
                        else f"How many times did '{kind}' happen {where}? Answer with a number 0-9.",
                        min(n, 9),
                        {"kind": "multiple"},
                    )
                )
                out.append(
                    Instance(
                        f"lcric_reg_{g.game_id}",
                        sport,
                        f"How many points/goals were scored in total {where}? Answer with a number.",
                        float(sum(g.period_scores[0])),
                        {"kind": "regression"},
                    )
                )
        return out

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        rec = await run_agent(env, env.ctx(inst.sport), inst.prompt, trajectory)
        pred = lcric_prediction(inst.meta["kind"], rec.answer, inst.prompt)
        return rec.updated(pred=pred, correct=pred == inst.gold)

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        by = {
            k: [r for r in records if r.meta["kind"] == k]
            for k in ("binary", "multiple", "regression")
        }
        reg = [(float(r.pred), float(r.gold)) for r in by["regression"] if r.pred is not None]
        return {
            "binary_accuracy": accuracy([bool(r.correct) for r in by["binary"]]),
            "multiple_accuracy": accuracy([bool(r.correct) for r in by["multiple"]]),
            "regression_l1": mean_abs_error([p for p, _ in reg], [g for _, g in reg]),
            "regression_unparsed": len(by["regression"]) - len(reg),
        }
