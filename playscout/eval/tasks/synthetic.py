"""Instances from the synthetic corpus: each clip window with its play-by-play events (which
carry the structured attributes: type, shot/play type, zone, player, jersey number, score).
Deterministic per clip id so reruns and resumes see the same instances."""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass, field
from typing import Any

from playscout.corpus import Corpus
from playscout.eval.errors import RunError

LETTERS = "ABCDE"


@dataclass
class ClipFacts:
    clip_id: str
    game_id: str
    sport: str
    period: int
    events: list[dict[str, Any]] = field(default_factory=list)
    teams: list[str] = field(default_factory=list)
    date: str | None = None


def rng_for(*parts: str) -> random.Random:
    return random.Random(int(hashlib.sha256("|".join(parts).encode()).hexdigest()[:12], 16))


def game_events(corpus: Corpus, sport: str, game_id: str) -> dict[str, Any]:
    path = corpus.game_path(sport, game_id, "play_by_play")
    if path is None or not path.is_file():
        raise RunError(
            f"{sport} game {game_id} has no play_by_play.json: without --data the task's items "
            "are made from a synthetic corpus' play-by-play; for a released corpus pass the "
            "task's published data (--data, see `playscout eval tasks`)"
        )
    data: dict[str, Any] = corpus.read_json(path)
    return data


def clip_facts(corpus: Corpus, sport: str, max_games: int = 3) -> list[ClipFacts]:
    out: list[ClipFacts] = []
    for game_id in corpus.games_in_order(sport)[:max_games]:
        pbp = game_events(corpus, sport, game_id)
        by_id = {e["event_id"]: e for e in pbp.get("events", [])}
        clips = corpus.clips_file(sport, game_id)
        if clips is None:
            continue
        teams = [pbp.get("home_team", ""), pbp.get("away_team", "")]
        for cid, window in clips.windows.items():
            evs = [by_id[i] for i in window.event_ids if i in by_id]
            if evs:
                out.append(
                    ClipFacts(cid, game_id, sport, window.period, evs, teams, pbp.get("date"))
                )
    return out


def options_for(
    correct: str, pool: list[str], rng: random.Random, n: int = 5
) -> tuple[list[str], int]:
    """`n` options with the correct one at a random position; distractors from the pool."""
    others = sorted({p for p in pool if p and p != correct})
    rng.shuffle(others)
    opts = [correct, *others[: n - 1]]
    rng.shuffle(opts)
    return opts, opts.index(correct)


def render_options(options: list[str]) -> str:
    return "\n".join(f"{LETTERS[i]}: {o}" for i, o in enumerate(options))


_LETTER = re.compile(r"(?:^|answer(?: is)?[:\s]+|\()\s*([A-E])(?:\)|\.|:|\s|$)", re.I)


def pick_option(answer: str | None, options: list[str]) -> int | None:
    """The chosen option: a leading/explicit letter, else the one option whose text appears in
    the answer (GameplayQA's option extraction, made deterministic). None = no choice."""
    if not answer:
        return None
    m = _LETTER.search(answer.strip())
    if m and LETTERS.index(m.group(1).upper()) < len(options):
        return LETTERS.index(m.group(1).upper())
    from playscout.eval.judging.text import normalise

    text = f" {normalise(answer)} "
    found = [i for i, o in enumerate(options) if f" {normalise(o)} " in text]
    return found[0] if len(found) == 1 else None


def qa_answer(result: Any) -> tuple[str | None, float | None]:
    """First item's answer and confidence of a video_qa/document_qa ToolResult."""
    items = getattr(result.data, "items", None) or []
    for item in items:
        if item.answer:
            return item.answer, item.confidence
    return None, None
