"""T1, T2, T3, T5 and T8 on their published files. T1/T2/T5/T8 items name a video file, not a
corpus clip, so each is one question to the VLM about that file with the task's prompt; T3
ranks its pool with search_videos, so its pool must be clips of the index."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

from playscout.eval.metrics import accuracy, grouped_accuracy, mean
from playscout.eval.published import svi
from playscout.eval.published.formats import SVI, Format
from playscout.eval.published.routes import ask_video_files, first_letter, require_vlm
from playscout.eval.published.task import Needs, PublishedTask
from playscout.eval.records import Outcome, ResultRow
from playscout.eval.registry import declare
from playscout.eval.tasks.clips import AXES, T1Task, T2Task, T3Task, rubric_scores
from playscout.eval.tasks.games import T5Task
from playscout.eval.tasks.generation import T8Task
from playscout.eval.tasks.synthetic import pick_option
from playscout.eval.tasks.task import Instance, TaskEnv

FILE_QA = Needs(videos="required", vlm=True, judge="the option letter the reply names")

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


class T1Published(PublishedTask):
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


class _FileMCQ(PublishedTask):
    """A multiple-choice question about the item's video files."""

    needs = FILE_QA
    pick_rule = "letter"  # "letter": first standalone letter; "option": letter or option text

    def check(self, env: TaskEnv) -> None:
        require_vlm(env, self.name, "asks a VLM about each item's video")

    def prompt(self, inst: Instance) -> str:
        return inst.prompt

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        rec = await ask_video_files(env, inst, self.prompt(inst), trajectory)
        options = inst.meta["options"]
        if self.pick_rule == "option":
            choice = pick_option(rec.answer, options)
        else:
            choice = first_letter(rec.answer, len(options))
        return rec.updated(choice=choice, correct=choice == inst.gold)

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        return {
            "accuracy": accuracy([bool(r.correct) for r in records]),
            "per_question_type": grouped_accuracy(
                [(r.meta.get("question_type", "unknown"), bool(r.correct)) for r in records]
            ),
            "no_choice": sum(r.choice is None for r in records),
        }


class T2Published(_FileMCQ):
    name = "t2"
    description = "Fine-grained action MCQ about a published clip, accuracy per question type."
    pick_rule = "option"


class T5Published(_FileMCQ):
    name = "t5"
    description = "Outcome forecasting MCQ about a published observation segment."

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        return {
            **super().score(records),
            "calibration_error": None,
            "calibration_note": "needs each option's probability (the reference reads log-probs "
            "of the option letters); replies here are letters only",
        }


class T8Published(_FileMCQ):
    name = "t8"
    description = "Goal accuracy: the T8 evaluator's MCQ about a clip, start box drawn in red."
    stand_in = T8Task.stand_in

    def prompt(self, inst: Instance) -> str:
        return f"{inst.prompt}\nAnswer with the option's letter from the given choices directly."

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        per_type = grouped_accuracy(
            [(r.meta.get("question_type", "unknown"), bool(r.correct)) for r in records]
        )
        return {
            "goal_accuracy_micro": accuracy([bool(r.correct) for r in records]),
            "goal_accuracy_macro": mean([float(v) for v in per_type.values()]),
            "per_question_type": per_type,
            "no_choice": sum(r.choice is None for r in records),
            "note": self.stand_in,
        }


class T3Published(PublishedTask):
    name = "t3"
    description = (
        "Compositional retrieval: R@K of a published query over its pool, via search_videos."
    )
    needs = Needs(corpus="required", judge="R@K over the pool")

    def resolve(self, items: list[Instance], env: TaskEnv) -> None:
        """A pool video is ranked only if it is a clip of the index (its file stem is the clip
        id); else the query is missing_input, never ranked over a smaller pool."""
        backend = env.runtime.require_backend()
        known: dict[tuple[str, str], bool] = {}
        for inst in items:
            ids = [Path(p).stem for p in inst.meta["pool_refs"]]
            unknown = [i for i in ids if not self._known(backend, inst.sport, i, known)]
            if unknown:
                inst.missing = (
                    f"{len(unknown)} of {len(ids)} pool videos are not clips of the index "
                    f"(first: {unknown[0]}); index the T3 pool as clips first"
                )
                continue
            inst.meta["pool"] = ids
            inst.gold = Path(str(inst.gold)).stem

    @staticmethod
    def _known(backend: Any, sport: str, clip_id: str, cache: dict[tuple[str, str], bool]) -> bool:
        if (sport, clip_id) not in cache:
            cache[(sport, clip_id)] = backend.get_clips(sport, [clip_id])[0] is not None
        return cache[(sport, clip_id)]

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        return await T3Task().route(inst, env, trajectory)

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        return {
            **T3Task().score(records),
            "per_hn_bin": dict(Counter(r.meta.get("hn_bin") for r in records)),
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
            svi.t1_captions,
            T1Published,
            example="`T1/captions/<sport>_caption_<split>.json`",
        ),
    ),
)
T2 = declare(
    "t2",
    metric="accuracy, per question type",
    generated=T2Task,
    published=(
        Format(
            "T2 MCQ JSON",
            "[{id, video, question_type, question, options ['A: ...'], answer}]",
            f"{SVI}/t2_fine_grained_action_qa/README.md",
            svi.t2_mcq,
            T2Published,
            example="`T2/data/<sport>_qa_<split>.json`",
        ),
    ),
)
T3 = declare(
    "t3",
    metric="R@K and MedR of the positive over its candidate pool",
    generated=T3Task,
    published=(
        Format(
            "T3 annotation JSON",
            "[{video|image, caption, is_positive, hn_bin}]",
            "SVI-Bench T3 data/{split}/<sport>_<split>.json (docs/published-data.md)",
            svi.t3_queries,
            T3Published,
            example="`T3/data/<split>/<sport>_<split>.json`",
        ),
    ),
)
T5 = declare(
    "t5",
    metric="accuracy; calibration error where option probabilities are known",
    generated=T5Task,
    published=(
        Format(
            "T5 forecasting JSON",
            "[{id, conversations [human: <video> question with A-E, gpt: letter], video}]",
            f"{SVI}/t5_outcome_forecasting/dataset/*_test.json",
            svi.t5_forecast,
            T5Published,
            example="`T5/<sport>_test.json`",
        ),
    ),
)
T8 = declare(
    "t8",
    metric="goal accuracy, micro and macro over question types",
    generated=T8Task,
    published=(
        Format(
            "T8 goal-accuracy QA",
            "[{id, video, start_bbox, jersey_number, normalized_action, conversations}]",
            f"{SVI}/t8_goal_conditioned_action_generation/README.md (qa_test/Q*.json)",
            svi.t8_goal_qa,
            T8Published,
            example="`T8/basketball/qa_test/Q*.json`",
        ),
        Format(
            "T8 captions.json",
            "{clip id: {refined_instruction, player_specifications}} (generation input)",
            f"{SVI}/t8_goal_conditioned_action_generation/README.md",
            svi.t8_captions,
            T8Published,
            runnable=False,
            example="`T8/captions.json`",
        ),
    ),
)
