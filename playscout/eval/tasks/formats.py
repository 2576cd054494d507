"""Loaders for the published data formats (docs/reference.md §8),
each to task Instances. Only the fields the metrics need are required; unknown fields are kept
in `meta`. Video paths are kept as given (the media is gated and not shipped)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson

from playscout.eval.metrics.boxes import Box
from playscout.eval.tasks.task import Instance

LETTERS = "ABCDEFGHIJ"


def _json(path: Path) -> Any:
    return orjson.loads(Path(path).read_bytes())


def _sport(path: Path) -> str:
    m = re.match(r"(basketball|hockey|soccer)", Path(path).name)
    return m.group(1) if m else "unknown"


def load_t1_captions(path: Path) -> list[Instance]:
    """T1/captions/<sport>_caption_*.json: [{video, data_source, caption}]."""
    return [
        Instance(
            f"t1_{e['data_source']}",
            _sport(path),
            "Describe the play.",
            e["caption"],
            {"video": e["video"]},
        )
        for e in _json(path)
    ]


def load_t2_mcq(path: Path) -> list[Instance]:
    """T2/data/<sport>_qa_*.json: {id, video, question_type, question, options ["A: ..."], answer}."""
    out = []
    for e in _json(path):
        opts = [re.sub(r"^[A-J]\s*[:.)]\s*", "", o) for o in e["options"]]
        out.append(Instance(str(e["id"]), _sport(path), e["question"], LETTERS.index(e["answer"].strip()[0]),
                            {"video": e["video"], "question_type": e.get("question_type"), "options": opts}))  # fmt: skip
    return out


def load_t3_queries(path: Path) -> list[Instance]:
    """T3/data/<split>/<sport>_<split>.json entries {video|image, caption, is_positive, hn_bin}:
    one query per positive, the pool is every entry's video."""
    entries = _json(path)
    pool = [e.get("video") or e.get("image") for e in entries]
    return [
        Instance(
            f"t3_{i}",
            _sport(path),
            e["caption"],
            e.get("video") or e.get("image"),
            {"pool": pool, "hn_bin": e.get("hn_bin")},
        )
        for i, e in enumerate(entries)
        if e.get("is_positive", True)
    ]


def load_t4_open(path: Path) -> list[Instance]:
    """T4/qa.json: {league, game_id, question_type, question, answer, video_path}."""
    league_sport = {"NBA": "basketball", "EuroLeague": "basketball", "NCAA": "basketball",
                    "NHL": "hockey", "Premier League": "soccer", "LaLiga": "soccer"}  # fmt: skip
    return [
        Instance(
            f"t4_{i}",
            league_sport.get(e.get("league", ""), "unknown"),
            e["question"],
            e["answer"],
            {
                "game_id": e.get("game_id"),
                "question_type": e.get("question_type"),
                "video": e.get("video_path"),
            },
        )
        for i, e in enumerate(_json(path))
    ]


def load_t5_forecast(path: Path) -> list[Instance]:
    """T5/<sport>_<split>.json: {id, conversations [{from: human, value}, {from: gpt, value: "B"}], video}."""
    out = []
    for e in _json(path):
        human = next(c["value"] for c in e["conversations"] if c["from"] == "human")
        gold = next(c["value"] for c in e["conversations"] if c["from"] == "gpt").strip()
        opts = re.findall(r"^\(?([A-E])[).:]\s*(.+)$", human, re.M)
        out.append(Instance(str(e["id"]), _sport(path), human.replace("<video>\n", ""), LETTERS.index(gold[0]),
                            {"video": e.get("video"), "options": [o for _, o in opts]}))  # fmt: skip
    return out


def load_t6_sample(folder: Path) -> Instance:
    """T6/<sport>/<single_game|multi_game>/Q*/<id>/: prompt.txt, metadata.json, stats.txt,
    log.txt, ground_truth_report.txt, coverage_facts.txt (test only; one fact a line)."""
    folder = Path(folder)
    facts_file = folder / "coverage_facts.txt"
    facts = (
        [ln.strip() for ln in facts_file.read_text().splitlines() if ln.strip()]
        if facts_file.is_file()
        else []
    )
    return Instance(
        f"t6_{folder.name}", folder.parts[-4] if len(folder.parts) >= 4 else "unknown",
        (folder / "prompt.txt").read_text().strip(), facts,
        {"reference": (folder / "ground_truth_report.txt").read_text(), "stats": (folder / "stats.txt").read_text(),
         "metadata": _json(folder / "metadata.json")},
    )  # fmt: skip


def load_mot_tracks(path: Path) -> dict[str, dict[int, Box]]:
    """T7 bboxes (MOT-style): frame_id, track_id, x1, y1, x2, y2, conf, -1, -1, -1 (normalised)."""
    tracks: dict[str, dict[int, Box]] = {}
    for line in Path(path).read_text().splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) < 6:
            continue
        frame, tid = int(float(parts[0])), str(int(float(parts[1])))
        tracks.setdefault(tid, {})[frame] = (
            float(parts[2]),
            float(parts[3]),
            float(parts[4]),
            float(parts[5]),
        )
    return tracks


def load_t8_goal_qa(path: Path) -> list[Instance]:
    """T8 qa_test/Q*.json (LLaVA conversation form): {id, video, conversations, start_bbox,
    jersey_number, normalized_action}."""
    return [
        Instance(
            str(e["id"]),
            "basketball",
            next(c["value"] for c in e["conversations"] if c["from"] == "human"),
            LETTERS.index(
                next(c["value"] for c in e["conversations"] if c["from"] == "gpt").strip()[0]
            ),
            {
                "video": e.get("video"),
                "jersey_number": e.get("jersey_number"),
                "action": e.get("normalized_action"),
            },
        )
        for e in _json(path)
    ]


def load_gameplayqa(path: Path) -> list[Instance]:
    """GameplayQA MCQ: {id, videos [..] | video, question, options [..], answer "B",
    question_code, distractor_types [per option], entity_type}."""
    out = []
    for e in _json(path):
        videos = e.get("videos") or [e["video"]]
        out.append(Instance(str(e["id"]), "gameplay", e["question"], LETTERS.index(e["answer"].strip()[0]),
                            {"videos": videos, "options": e["options"], "multi_video": len(videos) > 1,
                             "entity_type": e.get("entity_type"), "option_kinds": e.get("distractor_types"),
                             "question_code": e.get("question_code")}))  # fmt: skip
    return out


def load_starbench(path: Path) -> list[Instance]:
    """STARBench items: {id, video, turns [{question, answer, rubric [{name, description,
    category, is_penalty, weight?}]}]}; weights default to the prompt's 5/3/1 (penalty 5)."""
    default = {"high_priority": 5, "medium_priority": 3, "low_priority": 1, "penalty": 5}
    out = []
    for e in _json(path):
        turns = []
        for t in e["turns"]:
            rubric = [
                {**r, "weight": r.get("weight", default.get(r.get("category", ""), 3))}
                for r in t["rubric"]
            ]
            turns.append({"question": t["question"], "ideal": t["answer"], "rubric": rubric})
        out.append(Instance(str(e["id"]), "video", turns[0]["question"], turns,
                            {"video": e.get("video"), "multi_turn": len(turns) > 1}))  # fmt: skip
    return out


def load_lcric(path: Path) -> list[Instance]:
    """LCric queries: {id, video, kind: binary|multiple|regression, query, answer}."""

    def conv(kind: str, a: Any) -> Any:
        if kind == "binary":
            return a.lower() in ("true", "yes", "1") if isinstance(a, str) else bool(a)
        return int(a) if kind == "multiple" else float(a)

    return [
        Instance(
            str(e["id"]),
            "cricket",
            e["query"],
            conv(e["kind"], e["answer"]),
            {"kind": e["kind"], "video": e.get("video")},
        )
        for e in _json(path)
    ]
