"""GameplayQA (the released qa.csv, and the authors' question-generator export), STARBench and
LCric, each file to task Instances. GameplayQA's options are built exactly as its reference
builds them (gameplayqa/questions.py: EXIST questions are True/False, otherwise the correct
option and up to three typed distractors, shuffled by a RNG seeded from "13:<id>"), so an
option letter means the same here as there."""

from __future__ import annotations

import hashlib
import random
import re
from pathlib import Path
from typing import Any

from playscout.eval.errors import DataFormatError
from playscout.eval.published.models import (
    GAMEPLAYQA_COLUMNS,
    GameplayQARow,
    GeneratorExport,
    LcricQuery,
    StarbenchItem,
)
from playscout.eval.tasks.reading import read_csv, read_json, records, unique_ids, validate
from playscout.eval.tasks.task import Instance

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


def _lcric_gold(kind: str, answer: Any) -> bool | int | float:
    if kind == "binary":
        return (
            answer if isinstance(answer, bool) else str(answer).strip().lower() in ("true", "yes")
        )
    return int(float(answer)) if kind == "multiple" else float(answer)


def lcric_queries(path: Path) -> list[Instance]:
    items = records(path, read_json(path), LcricQuery, "query")
    unique_ids(path, [e.id for e in items])
    return [
        Instance(
            e.id,
            "cricket",
            e.query,
            _lcric_gold(e.kind, e.answer),
            {"kind": e.kind, "video_refs": [e.video]},
        )
        for e in items
    ]
