"""T8 goal-conditioned action generation, its goal accuracy: the T8 evaluator's
multiple-choice question about a clip. The stack has no video generator, so the real clip
stands in for a generated one (stated in every record): on the synthetic corpus (T8Task) via
video_qa, on the published qa_test files (T8Published) as a video file asked of the VLM with
the target player's start box drawn in red."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, model_validator

from playscout.eval.errors import DataFormatError
from playscout.eval.judging.metrics import accuracy, grouped_accuracy, mean
from playscout.eval.storage.records import Outcome, ResultRow
from playscout.eval.tasks.options import options_for, pick_option, render_options
from playscout.eval.tasks.reading import NotRunnable, Text, read_json, records, unique_ids, validate
from playscout.eval.tasks.registry import declare
from playscout.eval.tasks.routes import ask_video_qa
from playscout.eval.tasks.svi import SVI, Conversation, mcq, strip_media_tag
from playscout.eval.tasks.synthetic import SYNTHETIC, clip_facts, rng_for
from playscout.eval.tasks.task import Format, Instance, Task, TaskEnv
from playscout.eval.tasks.video_files import FileMCQ


class T8Task(Task):
    name = "t8"
    stand_in = "the real clip stands in for a generated one (no video generator in this stack)"
    description = (
        "Goal accuracy: the T8 evaluator's MCQ via video_qa on the clip (real clip as stand-in)."
    )
    calls = frozenset({"video_qa"})

    def questions(self, env: TaskEnv, sports: Sequence[str], limit: int | None) -> list[Instance]:
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
        answer, rec = await ask_video_qa(env, inst, trajectory, [inst.meta["clip_id"]])
        choice = pick_option(answer, inst.meta["options"])
        return rec.updated(
            answer=answer, choice=choice, correct=choice == inst.gold, note=SYNTHETIC
        )

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        return {
            "goal_accuracy": accuracy([bool(r.correct) for r in records]),
            "note": SYNTHETIC,
        }


class BoxModel(BaseModel):
    x1: float
    y1: float
    x2: float
    y2: float

    @model_validator(mode="before")
    @classmethod
    def _from_list(cls, v: Any) -> Any:
        if isinstance(v, (list, tuple)) and len(v) == 4:
            return dict(zip(("x1", "y1", "x2", "y2"), v, strict=True))
        return v

    @model_validator(mode="after")
    def _normalised(self) -> BoxModel:
        if not (0 <= self.x1 < self.x2 <= 1 and 0 <= self.y1 < self.y2 <= 1):
            raise ValueError("needs 0 <= x1 < x2 <= 1 and 0 <= y1 < y2 <= 1 (normalised)")
        return self

    def tuple(self) -> tuple[float, float, float, float]:
        return (self.x1, self.y1, self.x2, self.y2)


class T8Question(Conversation):
    """T8 qa_test/Q*.json item: the goal-accuracy MCQ about the (generated) clip, with the
    target player's start box, which the evaluator sees drawn in red on frame 0."""

    start_bbox: BoxModel
    jersey_number: Text | None = None
    normalized_action: str | None = None


class T8PlayerSpec(BaseModel):
    jersey_number: Text
    start_bbox: BoxModel
    end_bbox: BoxModel
    action: str


class T8Caption(BaseModel):
    """T8 captions.json value: a generation instruction (no question in it)."""

    refined_instruction: str
    player_specifications: list[T8PlayerSpec]


def t8_goal_qa(path: Path) -> list[Instance]:
    items = records(path, read_json(path), T8Question)
    unique_ids(path, [e.id for e in items])
    qtype = re.match(r"(Q\d+)", path.name)
    out = []
    for i, e in enumerate(items):
        question = strip_media_tag(e.question)
        options, gold = mcq(path, f"item {i}", question, e.answer)
        out.append(
            Instance(
                e.id,
                "basketball",
                question,
                gold,
                {
                    "video_refs": [e.video],
                    "options": options,
                    "box": list(e.start_bbox.tuple()),
                    "jersey_number": e.jersey_number,
                    "action": e.normalized_action,
                    "question_type": qtype.group(1) if qtype else "unknown",
                },
            )
        )
    return out


def t8_captions(path: Path) -> list[Instance]:
    """Recognised so that it fails with the right message: captions.json is the generation
    input, with no question to score."""
    raw = read_json(path)
    if not isinstance(raw, dict) or not raw:
        raise DataFormatError(f"{path.name}: expected an object clip id -> caption")
    for key, value in raw.items():
        validate(path, value, T8Caption, f"clip {key}")
    raise NotRunnable(
        f"{path.name}: T8 captions.json is the generators' input (instruction, start and end "
        "boxes), with no questions; goal accuracy runs on qa_test/Q*.json"
    )


class T8Published(FileMCQ):
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


T8 = declare(
    "t8",
    metric="goal accuracy, micro and macro over question types",
    generated=T8Task,
    published=(
        Format(
            "T8 goal-accuracy QA",
            "[{id, video, start_bbox, jersey_number, normalized_action, conversations}]",
            f"{SVI}/t8_goal_conditioned_action_generation/README.md (qa_test/Q*.json)",
            t8_goal_qa,
            T8Published,
            example="`T8/basketball/qa_test/Q*.json`",
        ),
        Format(
            "T8 captions.json",
            "{clip id: {refined_instruction, player_specifications}} (generation input)",
            f"{SVI}/t8_goal_conditioned_action_generation/README.md",
            t8_captions,
            T8Published,
            runnable=False,
            example="`T8/captions.json`",
        ),
    ),
)
