"""T7/T8 on synthetic data. The stack has no video generator and the synthetic corpus has no
boxes, so (stated in every record): T7 builds a synthetic ground-truth box track per player of
a clip (seeded curved motion) and scores a baseline prediction (straight-line interpolation
between the first and last box) by tracker-matched video mIoU; T8 asks the goal-accuracy MCQ
via video_qa about the *real* clip standing in for a generated one. Both are metric plumbing
checks, not generation results."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from playscout.eval.judging.metrics import accuracy, mean_video_miou, video_miou
from playscout.eval.judging.metrics.boxes import Box
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

FRAMES = 81  # 5.4 s at 15 fps, as the T7 outputs
SYNTHETIC = "synthetic boxes and a baseline predictor: no generator, no real tracks"


def synthetic_tracks(
    clip_id: str, players: int = 3, frames: int = FRAMES
) -> dict[str, dict[int, Box]]:
    rng = rng_for(clip_id, "tracks")
    tracks: dict[str, dict[int, Box]] = {}
    for p in range(players):
        x0, y0 = rng.uniform(0.1, 0.7), rng.uniform(0.1, 0.7)
        dx, dy, bend = rng.uniform(-0.2, 0.2), rng.uniform(-0.2, 0.2), rng.uniform(0.02, 0.08)
        w, h = rng.uniform(0.05, 0.1), rng.uniform(0.1, 0.2)
        track = {}
        for f in range(frames):
            t = f / (frames - 1)
            x = x0 + dx * t + bend * math.sin(math.pi * t)
            y = y0 + dy * t
            track[f] = (x, y, x + w, y + h)
        tracks[f"p{p}"] = track
    return tracks


def linear_prediction(gold: dict[str, dict[int, Box]]) -> dict[str, dict[int, Box]]:
    out: dict[str, dict[int, Box]] = {}
    for pid, track in gold.items():
        f0, f1 = min(track), max(track)
        a, b = track[f0], track[f1]
        out[pid] = {
            f: tuple(a[i] + (b[i] - a[i]) * (f - f0) / (f1 - f0) for i in range(4))  # type: ignore[misc]
            for f in track
        }
    return out


class T7Task:
    name = "t7"
    stand_in = SYNTHETIC  # said in every report's heading
    description = "Motion-conditioned generation metric: video mIoU of box tracks (synthetic)."
    needs_index = False
    calls: frozenset[str] = frozenset()
    judged = False

    def load(self, env: TaskEnv, sports: Sequence[str], limit: int | None) -> list[Instance]:
        out: list[Instance] = []
        for sport in sports:
            for f in clip_facts(env.need_corpus(), sport, max_games=1)[: limit or 5]:
                out.append(
                    Instance(
                        f"t7_{f.clip_id}",
                        sport,
                        f"tracks for {f.clip_id}",
                        None,
                        {"clip_id": f.clip_id},
                    )
                )
        return out

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        gold = synthetic_tracks(inst.meta["clip_id"])
        scored = video_miou(gold, linear_prediction(gold))
        if scored is None:  # no track matched: the reference leaves the video out of the mean
            return Outcome(answer=None, status="no_answer", turns=0, note=SYNTHETIC)
        miou = scored.miou
        return Outcome(
            answer=f"mIoU {miou:.3f}", status="answered", miou=miou, turns=0, note=SYNTHETIC
        )

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        """The reference's summary: mean holistic mIoU over matched videos, failures apart."""
        return {**mean_video_miou([r.miou for r in records]), "note": SYNTHETIC}


class T8Task:
    name = "t8"
    stand_in = "the real clip stands in for a generated one (no video generator in this stack)"
    description = (
        "Goal accuracy: the T8 evaluator's MCQ via video_qa on the clip (real clip as stand-in)."
    )
    needs_index = True
    calls = frozenset({"video_qa"})
    judged = False

    def load(self, env: TaskEnv, sports: Sequence[str], limit: int | None) -> list[Instance]:
        out: list[Instance] = []
        for sport in sports:
            facts = clip_facts(env.need_corpus(), sport, max_games=2)
            pool = sorted({str(e.get("type")) for f in facts for e in f.events})
            for f in facts[: limit or 5]:
                ev = f.events[0]
                opts, gold = options_for(str(ev.get("type")), pool, rng_for(f.clip_id, "t8"))
                q = (
                    f"What does player #{ev.get('number')} do in this clip?\n{render_options(opts)}\n"
                    "Answer with the option letter."
                )
                out.append(
                    Instance(
                        f"t8_{f.clip_id}", sport, q, gold, {"clip_id": f.clip_id, "options": opts}
                    )
                )
        return out

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        args = {"video_ids": [inst.meta["clip_id"]], "query": inst.prompt}
        result, rec = await direct_call(env, env.ctx(inst.sport), "video_qa", args, trajectory)
        answer, _ = qa_answer(result)
        choice = pick_option(answer, inst.meta["options"])
        return rec.updated(
            answer=answer, choice=choice, correct=choice == inst.gold, note=SYNTHETIC
        )

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        return {
            "goal_accuracy": accuracy([bool(r.correct) for r in records]),
            "note": SYNTHETIC,
        }
