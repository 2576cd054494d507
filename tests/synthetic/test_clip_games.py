"""`clip_games` caps the games that get clips (make demo's small corpus): every game keeps its
documents, the same games are generated, and only the earliest clip games keep their clips."""

from __future__ import annotations

import json
from pathlib import Path

from playscout.synthetic import generate_corpus


def _clip_games(root: Path, sport: str) -> list[str]:
    meta = json.loads((root / "data" / sport / "metadata.json").read_text())
    return [g for g, files in meta.items() if "clips_metadata" in files]


def test_clip_games_keeps_documents_and_the_first_clip_games(tmp_path: Path) -> None:
    full = generate_corpus(tmp_path / "full", games=4, sports=["hockey"], seed=3, workers=1)
    capped = generate_corpus(
        tmp_path / "cap", games=4, sports=["hockey"], seed=3, workers=1, clip_games=1
    )
    f, c = full.sports["hockey"], capped.sports["hockey"]
    assert (f.games, f.clip_games) == (4, 4)
    assert (c.games, c.clip_games, c.documents) == (4, 1, f.documents)
    assert _clip_games(tmp_path / "cap", "hockey") == _clip_games(tmp_path / "full", "hockey")[:1]
    first = _clip_games(tmp_path / "cap", "hockey")[0]
    report = Path("data/hockey/games") / first / "game_stat_player.txt"
    assert (tmp_path / "cap" / report).read_text() == (tmp_path / "full" / report).read_text()
    assert c.clips < f.clips
