"""Clip-level tasks T1-T3 on synthetic instances (their published files: eval/published).

T1 routes one video_qa call per clip and is scored on six axes 0-5 by a deterministic rubric
over the clip's structured events (the LLM caption judge replaces it when configured). In
oracle mode T1/T2 are degenerate (the answer source is the ground truth) and the report says so.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from playscout.eval.judging.metrics import (
    accuracy,
    grouped_accuracy,
    mean,
    retrieval_metrics,
    zero_based_rank,
)
from playscout.eval.judging.text import normalise
from playscout.eval.storage.records import Outcome, ResultRow
from playscout.eval.tasks.synthetic import (
    clip_facts,
    options_for,
    pick_option,
    qa_answer,
    render_options,
    rng_for,
)
from playscout.eval.tasks.task import Instance, TaskEnv, direct_call

AXES = ("action", "identity", "causality", "spatial", "temporal", "contextual")
DEGENERATE = (
    "oracle mode: answers come from the ground-truth captions, so scores are an upper bound"
)


def axis_facts(ev: dict[str, Any], teams: list[str]) -> dict[str, list[str]]:
    """Facts a good description of this event must state, per T1 axis."""
    kind = str(ev.get("type", ""))
    attrs = ev.get("attributes") or {}
    outcome = [w for w in ("made", "missed", "goal", "saved", "blocked") if w in kind.lower()]
    return {
        "action": [
            a
            for k, a in attrs.items()
            if k in ("shot_type", "play_type", "pass_type", "shot") and a
        ],
        "identity": [x for x in (ev.get("player"), str(ev.get("number") or "")) if x],
        "causality": outcome,
        "spatial": [a for k, a in attrs.items() if k in ("zone", "area", "location") and a],
        "temporal": [str(ev.get("clock") or "").lstrip("0") or ""] if ev.get("clock") else [],
        "contextual": [t for t in teams if t] + [f"{ev.get('home_score')}-{ev.get('away_score')}"],
    }


def rubric_scores(prediction: str | None, facts: dict[str, list[str]]) -> dict[str, float]:
    """Each axis: 5 x the share of its facts found in the prediction (normalised text); an axis
    with no facts is not scored (None is dropped from the mean)."""
    text = f" {normalise(prediction or '')} "
    out: dict[str, float] = {}
    for axis in AXES:
        fs = [f for f in facts.get(axis, []) if f]
        if fs:
            out[axis] = 5.0 * sum(f" {normalise(f)} " in text for f in fs) / len(fs)
    return out


class T1Task:
    name = "t1"
    description = "Structured play description of a clip, 0-5 on six axes."
    needs_index = True
    calls = frozenset({"video_qa"})
    judged = False

    def load(self, env: TaskEnv, sports: Sequence[str], limit: int | None) -> list[Instance]:
        out: list[Instance] = []
        for sport in sports:
            for f in clip_facts(env.need_corpus(), sport)[: limit or 20]:
                merged: dict[str, list[str]] = defaultdict(list)
                for ev in f.events:
                    for k, v in axis_facts(ev, f.teams).items():
                        merged[k].extend(v)
                prompt = (
                    "Describe every action in this clip: the players (with jersey numbers), "
                    "their actions and outcomes, where on the court or field, the game clock "
                    "and period, the teams and the current score."
                )
                out.append(
                    Instance(f"t1_{f.clip_id}", sport, prompt, dict(merged), {"clip_id": f.clip_id})
                )
        return out

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        args = {"video_ids": [inst.meta["clip_id"]], "query": inst.prompt}
        result, rec = await direct_call(env, env.ctx(inst.sport), "video_qa", args, trajectory)
        answer, _ = qa_answer(result)
        scores = rubric_scores(answer, inst.gold)
        return rec.updated(answer=answer, scores=scores, score=mean(list(scores.values())))

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        per_axis = {
            a: mean([r.scores[a] for r in records if r.scores and a in r.scores]) for a in AXES
        }
        return {
            "avg_score": mean([r.score for r in records if r.score is not None]),
            "per_axis": per_axis,
            "judge": "deterministic rubric (fact recall per axis)",
        }


_ATTRS = ("shot_type", "zone", "play_type", "pass_type", "type")


class T2Task:
    name = "t2"
    description = "Fine-grained action MCQ about a clip (5 options), answered via video_qa."
    needs_index = True
    calls = frozenset({"video_qa"})
    judged = False

    def load(self, env: TaskEnv, sports: Sequence[str], limit: int | None) -> list[Instance]:
        out: list[Instance] = []
        for sport in sports:
            facts = clip_facts(env.need_corpus(), sport)
            pools: dict[str, set[str]] = defaultdict(set)
            for f in facts:
                for ev in f.events:
                    pools["type"].add(str(ev.get("type")))
                    pools["player"].add(str(ev.get("player")))
                    for k, v in (ev.get("attributes") or {}).items():
                        pools[k].add(str(v))
            for f in facts:
                ev = f.events[0]
                attrs = {"type": ev.get("type"), **(ev.get("attributes") or {})}
                rng = rng_for(f.clip_id, "t2")
                for qtype in [a for a in _ATTRS if attrs.get(a)] + ["player"]:
                    correct = str(ev.get("player") if qtype == "player" else attrs[qtype])
                    opts, gold = options_for(correct, sorted(pools[qtype]), rng)
                    if len(opts) < 2:
                        continue
                    what = (
                        "Who performs the first action"
                        if qtype == "player"
                        else f"What is the {qtype.replace('_', ' ')} of the first action"
                    )
                    q = f"{what} in this clip?\n{render_options(opts)}\nAnswer with the option letter."
                    out.append(
                        Instance(
                            f"t2_{f.clip_id}_{qtype}",
                            sport,
                            q,
                            gold,
                            {"clip_id": f.clip_id, "question_type": qtype, "options": opts},
                        )
                    )
                    break
                if limit and len(out) >= limit * (sports.index(sport) + 1):
                    break
        return out

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        args = {"video_ids": [inst.meta["clip_id"]], "query": inst.prompt}
        result, rec = await direct_call(env, env.ctx(inst.sport), "video_qa", args, trajectory)
        answer, _ = qa_answer(result)
        choice = pick_option(answer, inst.meta["options"])
        return rec.updated(answer=answer, choice=choice, correct=choice == inst.gold)

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        return {
            "accuracy": accuracy([bool(r.correct) for r in records]),
            "no_choice": sum(r.choice is None for r in records),
            "per_question_type": grouped_accuracy(
                [(r.meta["question_type"], bool(r.correct)) for r in records]
            ),
        }


class T3Task:
    name = "t3"
    description = "Compositional clip retrieval: R@K over a candidate pool, via search_videos."
    needs_index = True
    calls = frozenset({"search_videos"})
    judged = False

    def load(self, env: TaskEnv, sports: Sequence[str], limit: int | None) -> list[Instance]:
        out: list[Instance] = []
        pool_size = env.eval.retrieval_pool
        for sport in sports:
            facts = clip_facts(env.need_corpus(), sport)
            ids = [f.clip_id for f in facts]
            for f in facts[: limit or 10]:
                ev = f.events[0]
                attrs = ev.get("attributes") or {}
                parts = [str(ev.get("player") or ""), str(ev.get("type") or "")]
                parts += [str(v) for v in attrs.values() if isinstance(v, str)][:2]
                tier = sum(bool(p) for p in parts)
                rng = rng_for(f.clip_id, "t3")
                negatives = [i for i in ids if i != f.clip_id]
                rng.shuffle(negatives)
                pool = sorted([f.clip_id, *negatives[: pool_size - 1]])
                query = re.sub(
                    r"[^A-Za-z0-9\s]", " ", " ".join(p for p in parts if p)
                )  # see note in report
                out.append(
                    Instance(
                        f"t3_{f.clip_id}",
                        sport,
                        " ".join(query.split()),
                        f.clip_id,
                        {"pool": pool, "tier": tier},
                    )
                )
        return out

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        pool = inst.meta["pool"]
        ctx = env.ctx(inst.sport, video_top_k=min(1000, len(pool)), observation_clips=10)
        args = {"query": inst.prompt, "video_ids": pool}
        result, rec = await direct_call(env, ctx, "search_videos", args, trajectory)
        ranked = [h.clip_id for h in getattr(result.data, "hits", [])]
        rank = ranked.index(inst.gold) + 1 if inst.gold in ranked else None
        return rec.updated(answer=ranked[0] if ranked else None, rank=rank, pool_size=len(pool))

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        scored = [r for r in records if r.status != "error"]
        ranks = [zero_based_rank(r.rank, r.pool_size or 0) for r in scored]
        return {
            **retrieval_metrics(ranks),
            "not_retrieved": sum(r.rank is None for r in scored),
            "errors": len(records) - len(scored),
            "ranks": "0-based, as the reference (MedR 0 = the positive first)",
        }
