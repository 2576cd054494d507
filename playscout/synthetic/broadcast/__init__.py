"""Synthetic broadcast video of synthetic games, so the raw-video indexer (shot detection,
scoreboard OCR alignment, speech, embeddings) is tested on real MP4 files with known truth.

`render_game` turns a synthetic `play_by_play.json` (with its full-video spans) into
`{game_id}.mp4` (H.264 + AAC commentary), `{game_id}.pbp.json` (what a user would bring) and
`{game_id}.truth.json` (event times, scoreboard states, replays, ads, breaks, cuts).
"""

from __future__ import annotations

from .broadcast import RenderResult, corpus_games, pbp_game, render_corpus, render_game
from .timeline import RenderError

__all__ = [
    "RenderError",
    "RenderResult",
    "corpus_games",
    "pbp_game",
    "render_corpus",
    "render_game",
]
