"""T2 fine-grained action QA: a multiple-choice question about a clip, accuracy per question
type. On the synthetic corpus (T2Task) the question asks for one attribute of the clip's first
action, answered via video_qa; on the published MCQ files (T2Published) each item names a
video file, asked of the VLM."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import Field, field_validator, model_validator

from playscout.eval.judging.metrics import accuracy, grouped_accuracy
from playscout.eval.storage.records import Outcome, ResultRow
from playscout.eval.tasks.options import options_for, pick_option, render_options
from playscout.eval.tasks.reading import (
    LETTERS,
    NonEmpty,
    Record,
    Text,
    option_letter,
    read_json,
    records,
    unique_ids,
)
from playscout.eval.tasks.registry import declare
from playscout.eval.tasks.routes import ask_video_qa
from playscout.eval.tasks.svi import MCQ_SUFFIX, SVI, sport_of
from playscout.eval.tasks.synthetic import clip_facts, rng_for
from playscout.eval.tasks.task import Format, Instance, Task, TaskEnv
from playscout.eval.tasks.video_files import FileMCQ

_ATTRS = ("shot_type", "zone", "play_type", "pass_type", "type")


class T2Task(Task):
    name = "t2"
    description = "Fine-grained action MCQ about a clip (5 options), answered via video_qa."
    calls = frozenset({"video_qa"})

    def questions(self, env: TaskEnv, sports: Sequence[str], limit: int | None) -> list[Instance]:
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
        answer, rec = await ask_video_qa(env, inst, trajectory, [inst.meta["clip_id"]])
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


class T2Question(Record):
    """T2/data/<sport>_qa_<split>.json item; options are "A: Guard"."""

    id: Text
    video: NonEmpty
    question: NonEmpty
    options: list[str] = Field(min_length=2)
    answer: str
    question_type: str | None = None

    _letter = field_validator("answer")(option_letter)

    @model_validator(mode="after")
    def _answer_is_an_option(self) -> T2Question:
        if LETTERS.index(self.answer) >= len(self.options):
            raise ValueError(f"answer {self.answer} but only {len(self.options)} options")
        return self


def t2_mcq(path: Path) -> list[Instance]:
    items = records(path, read_json(path), T2Question)
    unique_ids(path, [e.id for e in items])
    out = []
    for e in items:
        options = [re.sub(r"^\s*[A-J]\s*[:.)]\s*", "", o).strip() for o in e.options]
        prompt = f"{e.question}\n" + "\n".join(e.options) + f"\n{MCQ_SUFFIX}"
        out.append(
            Instance(
                e.id,
                sport_of(path.name, e.video),
                prompt,
                LETTERS.index(e.answer),
                {
                    "video_refs": [e.video],
                    "options": options,
                    "question_type": e.question_type or "unknown",
                    **e.extra(),
                },
            )
        )
    return out


class T2Published(FileMCQ):
    name = "t2"
    description = "Fine-grained action MCQ about a published clip, accuracy per question type."
    pick_rule = "option"


T2 = declare(
    "t2",
    metric="accuracy, per question type",
    generated=T2Task,
    published=(
        Format(
            "T2 MCQ JSON",
            "[{id, video, question_type, question, options ['A: ...'], answer}]",
            f"{SVI}/t2_fine_grained_action_qa/README.md",
            t2_mcq,
            T2Published,
            example="`T2/data/<sport>_qa_<split>.json`",
        ),
    ),
)
