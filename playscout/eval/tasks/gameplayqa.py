"""GameplayQA: multiple-choice questions with typed distractors, over one or several videos;
accuracy per entity type and video count, wrong choices by distractor type.

On the synthetic corpus (GameplayQATask) the questions are made from clips' events. On the
released qa.csv and on the authors' question-generator export (GameplayQAPublished) the options
are built exactly as the reference builds them (gameplayqa/questions.py: EXIST questions are
True/False, otherwise the correct option and up to three typed distractors, shuffled by a RNG
seeded from "13:<id>"), so an option letter means the same here as there; every video of an
item goes to the VLM in one request, each labelled and cut to the question's time window."""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, model_validator

from playscout.eval.errors import DataFormatError
from playscout.eval.judging.metrics import accuracy, grouped_accuracy
from playscout.eval.storage.records import Outcome, ResultRow
from playscout.eval.tasks.options import first_letter, pick_option, render_options
from playscout.eval.tasks.reading import NonEmpty, Record, read_csv, read_json, unique_ids, validate
from playscout.eval.tasks.registry import declare
from playscout.eval.tasks.routes import ask_video_qa
from playscout.eval.tasks.synthetic import clip_facts, rng_for
from playscout.eval.tasks.task import Format, Instance, Needs, Task, TaskEnv
from playscout.eval.tasks.video_files import FileTask, ask_video_files


class GameplayQATask(Task):
    name = "gameplayqa"
    description = "GameplayQA-style MCQ with typed distractors, single and multi-video."
    calls = frozenset({"video_qa"})

    def questions(self, env: TaskEnv, sports: Sequence[str], limit: int | None) -> list[Instance]:
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
        answer, rec = await ask_video_qa(env, inst, trajectory, inst.meta["videos"][:1])
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


GAMEPLAYQA_COLUMNS = ("id", "question", "correct_option", "question_code", "video_1_file_name")


class GameplayQARow(Record):
    """A qa.csv row (HATS-ICT/GameplayQA gameplayqa/data.py, questions.py)."""

    id: NonEmpty
    question: NonEmpty
    correct_option: NonEmpty
    question_code: NonEmpty
    video_1_file_name: NonEmpty

    def distractors(self) -> list[tuple[str, str]]:
        """(option, type) for distractor_1..3 that are present, as the reference reads them."""
        out = []
        for i in range(1, 4):
            text = str(self.extra().get(f"distractor_{i}") or "").strip()
            if text:
                kind = str(self.extra().get(f"distractor_{i}_type") or "").strip() or "unknown"
                out.append((text, kind))
        return out

    def videos(self) -> list[str]:
        names = [self.video_1_file_name.strip()]
        names += [str(self.extra().get(f"video_{i}_file_name") or "").strip() for i in range(2, 6)]
        return [n for n in names if n]


class Span(BaseModel):
    start: float = Field(ge=0)
    end: float = Field(ge=0)

    @model_validator(mode="after")
    def _ordered(self) -> Span:
        if self.end < self.start:
            raise ValueError("end before start")
        return self


class GeneratorOption(BaseModel):
    option: NonEmpty
    start: float | None = None
    end: float | None = None


class GeneratorDistractor(GeneratorOption):
    type: NonEmpty


class GeneratorQuestion(Record):
    """A question of the authors' generator export (sync-video-label, GeneratedQuestion)."""

    id: NonEmpty
    level: int
    code: NonEmpty
    question: NonEmpty
    answer: GeneratorOption
    distractors: list[GeneratorDistractor] = Field(min_length=1)
    videoIndex: int | None = None
    videoIndices: list[int] | None = None
    videoContext: Span | None = None

    @model_validator(mode="after")
    def _has_videos(self) -> GeneratorQuestion:
        if self.videoIndex is None and not self.videoIndices:
            raise ValueError("needs videoIndex or videoIndices")
        return self


class GeneratorExport(Record):
    """The generator's export file: {instanceId, instanceName, generatedAt, stats, questions}."""

    instanceId: NonEmpty
    questions: list[GeneratorQuestion] = Field(min_length=1)
    projectFolder: str | None = None


SEED = 13  # the reference's default shuffle seed
_ENTITY = re.compile(r"(?<![A-Z])(SA|SS|OA|OS|WO|WE)(?![A-Z])")


def _rng(qid: str, seed: int = SEED) -> random.Random:
    digest = hashlib.sha256(f"{seed}:{qid}".encode()).hexdigest()
    return random.Random(int(digest[:16], 16))


def gameplayqa_options(
    qid: str, code: str, correct: str, distractors: list[tuple[str, str]]
) -> tuple[list[str], list[str], int]:
    """(options, their kinds, the correct index): "true" marks the correct option, the rest
    carry their distractor type; EXIST questions answer True or False."""
    if "EXIST" in code:
        answer = "True" if correct.strip().lower() == "true" else "False"
        wrong = "False" if answer == "True" else "True"
        options = [(answer, "true"), (wrong, "exist_negation")]
    else:
        options = [(correct.strip(), "true"), *distractors]
    _rng(qid).shuffle(options)
    kinds = [k for _, k in options]
    return [o for o, _ in options], kinds, kinds.index("true")


def gameplayqa_prompt(question: str, options: list[str], videos: int) -> str:
    """build_answer_prompt(format_multiple_choice_from_row(...)) of the reference."""
    lines = [f"Q: {question.strip()}", ""] + [f"{chr(65 + i)}. {o}" for i, o in enumerate(options)]
    body = "\n".join(lines)
    verb = "Watch the video" if videos == 1 else "Watch all the videos"
    return (
        f"{verb} carefully and answer the following multiple choice question.\n"
        "Answer with ONLY the letter of your choice. Do not include any explanation.\n\n"
        f"{body}\n\nYour answer:"
    )


def _entity(code: str) -> str:
    """SA, SS, OA, OS, WO or WE: the event type a question asks about, the last one its code
    names ("SA2SS-EXIST-True" asks about SS); codes naming none keep their first part."""
    found = _ENTITY.findall(code)
    return found[-1] if found else code.split("-")[0]


def _gqa_instance(
    qid: str,
    code: str,
    question: str,
    correct: str,
    distractors: list[tuple[str, str]],
    video_refs: list[Any],
    level: int | None,
    extra: dict[str, Any],
) -> Instance:
    options, kinds, gold = gameplayqa_options(qid, code, correct, distractors)
    meta = {
        "video_refs": video_refs,
        "options": options,
        "option_kinds": kinds,
        "question_code": code,
        "entity_type": _entity(code),
        "level": level,
        "multi_video": len(video_refs) > 1,
        **extra,
    }
    return Instance(
        qid, "gameplay", gameplayqa_prompt(question, options, len(video_refs)), gold, meta
    )


def _indices(value: str, count: int) -> list[int]:
    """video_indices as the reference parses it: comma-separated ints, else 0..count-1."""
    raw = [p.strip() for p in (value or "").split(",") if p.strip()]
    found = [int(p) for p in raw if p.lstrip("-").isdigit()]
    return found if len(found) == count else list(range(count))


def gameplayqa_csv(path: Path) -> list[Instance]:
    rows = read_csv(path, GAMEPLAYQA_COLUMNS)
    items = [validate(path, r, GameplayQARow, f"row {i + 2}") for i, r in enumerate(rows)]
    if not items:
        raise DataFormatError(f"{path.name}: no rows")
    unique_ids(path, [r.id for r in items])
    out = []
    for r in items:
        names = r.videos()
        idx = _indices(str(r.extra().get("video_indices") or ""), len(names))
        # the reference answers from per-question crops <id>.mp4 / <id>-v<index>.mp4; the
        # source videos (video_i_file_name) are the fallback
        crops = [f"{r.id}.mp4"] if len(names) == 1 else [f"{r.id}-v{i}.mp4" for i in idx]
        refs = [[crop, name] for crop, name in zip(crops, names, strict=True)]
        out.append(
            _gqa_instance(
                r.id,
                r.question_code,
                r.question,
                r.correct_option,
                r.distractors(),
                refs,
                None,
                {"video_indices": idx},
            )
        )
    return out


def gameplayqa_generator(path: Path) -> list[Instance]:
    export = validate(path, read_json(path), GeneratorExport)
    unique_ids(path, [q.id for q in export.questions])
    out = []
    for q in export.questions:
        indices = q.videoIndices or [int(q.videoIndex or 0)]
        refs = [{"instance": export.instanceId, "index": i} for i in indices]
        window = [q.videoContext.start, q.videoContext.end] if q.videoContext else None
        out.append(
            _gqa_instance(
                q.id,
                q.code,
                q.question,
                q.answer.option,
                [(d.option, d.type) for d in q.distractors],
                refs,
                q.level,
                {"windows": [window] * len(refs), "project_folder": export.projectFolder},
            )
        )
    return out


class GameplayQAPublished(FileTask):
    name = "gameplayqa"
    description = (
        "GameplayQA MCQ (qa.csv or generator export): all of an item's videos, one request."
    )
    needs = Needs(
        videos="required", vlm=True, judge="option letter (the reference's options and order)"
    )

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        rec = await ask_video_files(env, inst, inst.prompt, trajectory)
        choice = first_letter(rec.answer, len(inst.meta["options"]))
        kind = inst.meta["option_kinds"][choice] if choice is not None else "no_choice"
        return rec.updated(choice=choice, correct=choice == inst.gold, chosen_kind=kind)

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        return {
            **GameplayQATask().score(records),
            "per_level": grouped_accuracy(
                [(r.meta.get("level"), bool(r.correct)) for r in records]
            ),
            "no_choice": sum(r.choice is None for r in records),
        }


GAMEPLAYQA = declare(
    "gameplayqa",
    metric="accuracy per entity type and video count; wrong choices by distractor type",
    generated=GameplayQATask,
    published=(
        Format(
            "GameplayQA qa.csv",
            "id, question, correct_option, distractor_1..3(+_type), "
            "question_code, video_1..5_file_name, video_indices",
            "HATS-ICT/GameplayQA gameplayqa/data.py, questions.py",
            gameplayqa_csv,
            GameplayQAPublished,
            kind=".csv",
            example="`qa.csv`",
        ),
        Format(
            "GameplayQA generator export",
            "{instanceId, questions [{id, level, code, question, "
            "answer {option, start, end}, distractors [{type, option}], videoIndex, videoContext}]}",
            "wangyz1999/sync-video-label app/utils/questionGenerator/types.ts",
            gameplayqa_generator,
            GameplayQAPublished,
            example="the question generator's export",
        ),
    ),
)
