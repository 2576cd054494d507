"""T1 structured play description: describe a clip, scored 0-5 on six axes (action, identity,
causality, spatial, temporal, contextual).

On the synthetic corpus (T1Task) it is one video_qa call per clip, scored by a deterministic
rubric over the clip's structured events (the facts a good description must state, per axis).
On the published captions (T1Published) each item names a video file, asked of the VLM with
the task's prompt, and scored by the facts of the reference caption that text can check."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from playscout.eval.judging.metrics import mean
from playscout.eval.judging.text import normalise
from playscout.eval.storage.records import Outcome, ResultRow
from playscout.eval.tasks.reading import NonEmpty, Record, Text, read_json, records
from playscout.eval.tasks.registry import declare
from playscout.eval.tasks.routes import ask_video_qa
from playscout.eval.tasks.svi import SVI, sport_of
from playscout.eval.tasks.synthetic import clip_facts
from playscout.eval.tasks.task import Format, Instance, Needs, Task, TaskEnv
from playscout.eval.tasks.video_files import ask_video_files, require_vlm

AXES = ("action", "identity", "causality", "spatial", "temporal", "contextual")
T1_PROMPT = (
    "Describe every action in this clip: the players (with jersey numbers), their actions and "
    "outcomes, where on the court or field, the game clock and period, the teams and the "
    "current score."
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


class T1Task(Task):
    name = "t1"
    description = "Structured play description of a clip, 0-5 on six axes."
    calls = frozenset({"video_qa"})

    def questions(self, env: TaskEnv, sports: Sequence[str], limit: int | None) -> list[Instance]:
        out: list[Instance] = []
        for sport in sports:
            for f in clip_facts(env.need_corpus(), sport)[: limit or 20]:
                merged: dict[str, list[str]] = defaultdict(list)
                for ev in f.events:
                    for k, v in axis_facts(ev, f.teams).items():
                        merged[k].extend(v)
                out.append(
                    Instance(
                        f"t1_{f.clip_id}", sport, T1_PROMPT, dict(merged), {"clip_id": f.clip_id}
                    )
                )
        return out

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        answer, rec = await ask_video_qa(env, inst, trajectory, [inst.meta["clip_id"]])
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


class T1Caption(Record):
    """T1/captions/<sport>_caption_<split>.json item."""

    video: NonEmpty
    data_source: Text
    caption: NonEmpty


def t1_captions(path: Path) -> list[Instance]:
    items = records(path, read_json(path), T1Caption)
    out = [
        Instance(
            f"t1_{i}_{e.data_source}",
            sport_of(path.name, e.video),
            T1_PROMPT,
            e.caption,
            {"video_refs": [e.video], "data_source": e.data_source, **e.extra()},
        )
        for i, e in enumerate(items)
    ]
    return out


_NAME = re.compile(r"\b[A-Z][a-z'\-]+(?: [A-Z][a-z'\-]+)+")
_JERSEY = re.compile(r"#\s?\d{1,2}\b")
_CLOCK = re.compile(r"\b\d{1,2}:\d{2}\b")
_PERIOD = re.compile(
    r"\b(?:1st|2nd|3rd|4th|first|second|third|fourth|overtime)\s+(?:quarter|period|half)\b", re.I
)


_SCORE = re.compile(r"\b\d{1,3}\s*[-–]\s*\d{1,3}\b")
T1_FALLBACK = (
    "text fallback: identity, temporal and contextual facts (names, jersey numbers, clock, "
    "period, score) of the reference caption found in the answer; action, causality and "
    "spatial need the T1 LLM judge and are not scored"
)


def caption_facts(caption: str) -> dict[str, list[str]]:
    """The facts of a T1 reference caption that text can check, by axis."""
    return {
        "identity": _NAME.findall(caption) + _JERSEY.findall(caption),
        "temporal": _CLOCK.findall(caption) + _PERIOD.findall(caption),
        "contextual": _SCORE.findall(caption),
    }


class T1Published(Task):
    name = "t1"
    description = "Structured play description of a published clip, scored per axis 0-5."
    needs = Needs(videos="required", vlm=True, judge=T1_FALLBACK)

    def check(self, env: TaskEnv) -> None:
        require_vlm(env, self.name, "asks a VLM about each clip file")

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        rec = await ask_video_files(env, inst, inst.prompt, trajectory)
        scores = rubric_scores(rec.answer, caption_facts(str(inst.gold)))
        return rec.updated(scores=scores, score=mean(list(scores.values())))

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        return {
            "avg_score": mean([r.score for r in records if r.score is not None]),
            "per_axis": {
                a: mean([r.scores[a] for r in records if r.scores and a in r.scores]) for a in AXES
            },
            "judge": T1_FALLBACK,
        }


T1 = declare(
    "t1",
    metric="mean 0-5 over six axes (action, identity, causality, spatial, temporal, contextual)",
    generated=T1Task,
    published=(
        Format(
            "T1 captions JSON",
            "[{video, data_source, caption}]",
            f"{SVI}/t1_structured_play_description/README.md",
            t1_captions,
            T1Published,
            example="`T1/captions/<sport>_caption_<split>.json`",
        ),
    ),
)
