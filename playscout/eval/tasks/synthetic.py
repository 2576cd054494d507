"""What generated questions are made from: each clip window of the synthetic corpus with its
play-by-play events (which carry the structured attributes: type, shot/play type, zone,
player, jersey number, score), and a seeded RNG per clip id so reruns and resumes see the same
questions."""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from typing import Any

from playscout.corpus import Corpus
from playscout.eval.errors import RunError

SYNTHETIC = "synthetic boxes and a baseline predictor: no generator, no real tracks"
"""The note of T7 and T8 rows on the synthetic corpus: no video generator stands behind them."""


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
