"""Synthetic SVI-Bench T9 corpus: games, clip windows, documents and T9-style questions.

Writes the exact T9 release layout (docs/reference.md §1) so the loader, index
and tools run unchanged on it, at the paper's full scale (Table 37) or any smaller size.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import BaseModel, Field

from .questions import generate_questions
from .sports import spec_names
from .writer import write_corpus


class SportSummary(BaseModel):
    games: int
    clip_games: int = 0  # games with clips; the rest have documents only
    clips: int
    documents: int
    reports: int
    players: int
    teams: int
    player_seasons: int
    team_seasons: int
    seconds: float


class SynthSummary(BaseModel):
    """What generate_corpus wrote, per sport, and how long it took."""

    root: str
    seed: int
    sports: dict[str, SportSummary] = Field(default_factory=dict)
    wall_seconds: float = 0.0


def generate_corpus(
    out: Path,
    games: int,
    sports: Sequence[str] | None = None,
    seed: int = 0,
    workers: int | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    clip_games: int | None = None,
) -> SynthSummary:
    """Write a T9-layout corpus of `games` games under `out` (default: every sport the generator
    knows); deterministic per seed. `clip_games`: at most this many games of each sport get
    clips (the earliest); the others keep their documents, so a small corpus indexes fast."""
    t0 = time.perf_counter()
    names = list(sports) if sports else list(spec_names())
    stats = write_corpus(Path(out), games, names, seed, workers, progress, clip_games)
    return SynthSummary(
        root=str(out),
        seed=seed,
        sports={s: SportSummary(**st) for s, st in stats.items()},
        wall_seconds=round(time.perf_counter() - t0, 3),
    )


__all__ = ["SportSummary", "SynthSummary", "generate_corpus", "generate_questions"]
