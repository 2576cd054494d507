"""SVI-Bench T1-T9 as released, each file to task Instances. The fields each item keeps are
what its protocol needs: the published video path (T1/T2/T5/T8 have no corpus clip id), T4's
game id and question type, T5's and T8's options wherever the question text has them, T8's
start box. `meta["video_refs"]` are paths as written; media.py resolves them to files."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playscout.corpus.models import Question
from playscout.corpus.sports import sport_names, sport_of_league
from playscout.eval.errors import DataFormatError
from playscout.eval.published.models import (
    LETTERS,
    Conversation,
    T1Caption,
    T2Question,
    T3Entry,
    T4Question,
    T8Caption,
    T8Question,
)
from playscout.eval.tasks.options import options_in
from playscout.eval.tasks.reading import (
    NotRunnable,
    read_bytes,
    read_json,
    records,
    unique_ids,
    validate,
)
from playscout.eval.tasks.task import Instance

T1_PROMPT = (
    "Describe every action in this clip: the players (with jersey numbers), their actions and "
    "outcomes, where on the court or field, the game clock and period, the teams and the "
    "current score."
)
MCQ_SUFFIX = "Answer with the option's letter from the given choices directly."
# T5's evaluation prompt (evaluation/infer_gpt.py), the question after it.
T5_PROMPT = "Pick the best answer. Reply with exactly one letter: A, B, C, D, or E.\n\n{question}"


def sport_of(*texts: str) -> str:
    """The sport a file or video path names (`basketball_qa_val_10k.json`,
    `basketball/val/1.mp4`); "unknown" when none does."""
    names = "|".join(map(re.escape, sport_names()))
    for text in texts:
        m = re.search(rf"({names})", text.lower())
        if m:
            return m.group(1)
    return "unknown"


def _strip_media_tag(text: str) -> str:
    return re.sub(r"^\s*<(video|image)>\s*", "", text).strip()


def _mcq(path: Path, where: str, question: str, answer: str) -> tuple[list[str], int]:
    options = options_in(question)
    if len(options) < 2:
        raise DataFormatError(f"{path.name}: {where}: no options 'A: ...' found in the question")
    gold = LETTERS.index(answer.strip()[0].upper())
    if gold >= len(options):
        raise DataFormatError(
            f"{path.name}: {where}: answer {answer.strip()[0]} but the question has "
            f"{len(options)} options"
        )
    return options, gold


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


def t3_queries(path: Path) -> list[Instance]:
    """One query per positive; the pool is every entry's video."""
    entries = records(path, read_json(path), T3Entry, "entry")
    pool = [str(e.video or e.image) for e in entries]
    return [
        Instance(
            f"t3_{i}",
            sport_of(path.name, pool[i]),
            e.caption,
            pool[i],
            {"pool_refs": pool, "hn_bin": e.hn_bin},
        )
        for i, e in enumerate(entries)
        if e.is_positive
    ]


def t4_questions(path: Path) -> list[Instance]:
    items = records(path, read_json(path), T4Question, "question")
    out = []
    for i, e in enumerate(items):
        # the reference's get_sport (T4 evaluation/evaluate.py) reads the sport records' leagues,
        # without its "anything else is soccer"
        sport = sport_of_league(e.league)
        out.append(
            Instance(
                f"t4_{i}",
                sport or "unknown",
                e.question,
                e.answer,
                {
                    "game_id": e.game_id,
                    "league": e.league,
                    "question_type": e.question_type,
                    "video_refs": [e.video_path],
                    **e.extra(),
                },
                missing=None if sport else f"unknown league {e.league!r}: no sport to route it to",
            )
        )
    return out


def t5_forecast(path: Path) -> list[Instance]:
    items = records(path, read_json(path), Conversation)
    unique_ids(path, [e.id for e in items])
    out = []
    for i, e in enumerate(items):
        if "start_bbox" in e.extra():
            raise DataFormatError(f"{path.name}: item {i} has a start_bbox: a T8 goal-QA item")
        question = _strip_media_tag(e.question)
        options, gold = _mcq(path, f"item {i}", question, e.answer)
        kind = re.match(r"(Q\d+)", e.id)
        out.append(
            Instance(
                e.id,
                sport_of(path.name, e.video),
                T5_PROMPT.format(question=question),
                gold,
                {
                    "video_refs": [e.video],
                    "options": options,
                    "question_type": kind.group(1) if kind else "unknown",
                },
            )
        )
    return out


def t6_samples(folder: Path) -> list[Instance]:
    """T6/<sport>/{single_game,multi_game}/Q*/<id>/ folders (or one of them): prompt.txt,
    metadata.json, stats.txt, log.txt, ground_truth_report.txt, coverage_facts.txt (test)."""
    if not folder.is_dir():
        raise DataFormatError(f"{folder}: T6 data is a folder of sample folders, not a file")
    samples = sorted(p.parent for p in folder.rglob("prompt.txt"))
    if not samples:
        raise DataFormatError(f"{folder.name}: no sample folder (none has a prompt.txt)")
    return [_t6_sample(folder, s) for s in samples]


def _text(path: Path) -> str:
    try:
        return read_bytes(path).decode("utf-8")
    except UnicodeDecodeError as e:
        raise DataFormatError(f"{path.name}: not UTF-8 text ({e.reason})") from None


def _t6_sample(root: Path, sample: Path) -> Instance:
    where = sample.relative_to(root.parent)
    meta_file = sample / "metadata.json"
    metadata = read_json(meta_file) if meta_file.is_file() else {}
    if not isinstance(metadata, dict):
        raise DataFormatError(f"{where}/metadata.json: expected a JSON object")
    for name in ("ground_truth_report.txt",):
        if not (sample / name).is_file():
            raise DataFormatError(f"{where}: no {name}")
    game_ids = metadata.get("game_ids") or (
        [metadata["game_id"]] if metadata.get("game_id") is not None else []
    )
    videos = metadata.get("video_paths") or (
        [metadata["video_path"]] if metadata.get("video_path") else []
    )
    facts_file = sample / "coverage_facts.txt"
    facts = (
        [ln.strip() for ln in _text(facts_file).splitlines() if ln.strip()]
        if facts_file.is_file()
        else None
    )
    setting = next((p for p in sample.parts if p in ("single_game", "multi_game")), "single_game")
    template = next((p for p in sample.parts if re.fullmatch(r"Q\d+", p)), "Q?")
    instruction = _resolve_placeholders(_text(sample / "prompt.txt").strip(), metadata)
    return Instance(
        f"t6_{setting}_{template}_{sample.name}",
        sport_of(*sample.parts),
        instruction,
        facts,
        {
            "game_ids": [str(g) for g in game_ids],
            "video_refs": [str(v) for v in videos],
            "setting": setting,
            "template": template,
            "reference": _text(sample / "ground_truth_report.txt"),
            "stats": _text(sample / "stats.txt") if (sample / "stats.txt").is_file() else None,
        },
    )


def _resolve_placeholders(text: str, metadata: dict[str, Any]) -> str:
    """prompt.txt's {player}, {title}, ... filled from metadata.json, as eval_writing.py does."""
    keys = {
        "player": "selected_player",
        "title": "title",
        "attribute": "attribute",
        "timeframe": "timeframe",
        "event_description": "event_description",
    }
    for placeholder, key in keys.items():
        if metadata.get(key) is not None:
            text = text.replace("{" + placeholder + "}", str(metadata[key]))
    return text


def t7_tracks(path: Path) -> list[Instance]:
    """T7 bboxes: MOT-style text files (frame, track, x1, y1, x2, y2, conf, -1, -1, -1,
    normalised), one clip each; a folder holds many."""
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    if not files:
        raise DataFormatError(f"{path.name}: no track files")
    return [
        Instance(
            f"t7_{f.stem}",
            sport_of(*f.parts),
            f"tracks of {f.stem}",
            _mot_tracks(f),
            {"file": f.name},
        )
        for f in files
    ]


def tracks(
    gold: dict[str, list[list[float]]],
) -> dict[str, dict[int, tuple[float, float, float, float]]]:
    """A T7 item's gold ({track: [[frame, x1, y1, x2, y2], ...]}, as stored) as metric tracks."""
    return {tid: {int(r[0]): (r[1], r[2], r[3], r[4]) for r in rows} for tid, rows in gold.items()}


def _mot_tracks(path: Path) -> dict[str, list[list[float]]]:
    """{track id: [[frame, x1, y1, x2, y2], ...]}: JSON as it is stored in results.jsonl."""
    rows: dict[str, dict[int, list[float]]] = {}
    for n, line in enumerate(_text(path).splitlines(), 1):
        if not line.strip():
            continue
        parts = [p.strip() for p in line.split(",")]
        try:
            if len(parts) < 6:
                raise ValueError("fewer than 6 fields")
            frame, tid = int(float(parts[0])), str(int(float(parts[1])))
            box = (float(parts[2]), float(parts[3]), float(parts[4]), float(parts[5]))
        except ValueError as e:
            raise DataFormatError(
                f"{path.name}: line {n}: not 'frame,track,x1,y1,x2,y2,...' ({e})"
            ) from None
        rows.setdefault(tid, {})[frame] = [float(frame), *box]
    if not rows:
        raise DataFormatError(f"{path.name}: no tracks")
    return {tid: [by_frame[f] for f in sorted(by_frame)] for tid, by_frame in rows.items()}


def t8_goal_qa(path: Path) -> list[Instance]:
    items = records(path, read_json(path), T8Question)
    unique_ids(path, [e.id for e in items])
    qtype = re.match(r"(Q\d+)", path.name)
    out = []
    for i, e in enumerate(items):
        question = _strip_media_tag(e.question)
        options, gold = _mcq(path, f"item {i}", question, e.answer)
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


def t9_questions(path: Path) -> list[Instance]:
    """questions/{sport}.json of the T9 release layout."""
    items = records(path, read_json(path), Question, "question")
    unique_ids(path, [q.id for q in items])
    for i, q in enumerate(items):
        clip_fields = sorted({"video", "options", "conversations"} & set(q.model_extra or {}))
        if clip_fields:
            raise DataFormatError(
                f"{path.name}: question {i} has {clip_fields[0]!r}: a clip-task item, not T9"
            )
    sport = sport_of(path.name)
    return [
        Instance(
            q.id,
            q.sport or sport,
            q.question,
            q.answer,
            {"answer_type": q.answer_type, "sources": q.sources},
        )
        for q in items
    ]
