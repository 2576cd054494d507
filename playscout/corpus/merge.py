"""Adding one corpus's documents to another corpus of the same games.

`index videos` writes clips only, so a corpus built from video has no recaps, box scores or
season statistics, and no T9 question (which names its game through documents) can be asked of
it. `add_documents` copies them, game by game, from a corpus that has them: the synthetic corpus
the video was rendered from, or the user's own. Clips, play-by-play and questions of the target
are never touched; T9 questions are generated afterwards, on the merged corpus, so their gold
clips are the target's clips (`corpus questions`, docs/video-indexing.md).
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
from pydantic import BaseModel

from playscout.corpus.errors import CorpusError
from playscout.corpus.loader import SEASON_METADATA, Corpus
from playscout.corpus.models import GAME_DOC_TYPES


class DocumentsAdded(BaseModel):
    """What add_documents copied into one sport of the target."""

    sport: str
    games: int
    game_documents: int
    season_documents: int


def _copy(source: Corpus, target: Corpus, path: Path) -> str:
    """Copy a source file to the same place under the target's root; its path relative to the
    sport folder, as metadata files name it."""
    rel = path.relative_to(source.root)
    dest = target.root / rel
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(path, dest)
    return str(rel.relative_to(Path("data") / rel.parts[1]))


def _write_json(path: Path, data: Any) -> None:
    """Write through a temporary file and a rename, so a crash never leaves half a metadata."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(orjson.dumps(data, option=orjson.OPT_INDENT_2))
    tmp.replace(path)


def _game_documents(source: Corpus, target: Corpus, sport: str) -> tuple[int, int]:
    """Each target game's documents from the source; (games, documents) copied."""
    src_games = source.games(sport)
    meta_path = target.sport_dir(sport) / "metadata.json"
    meta = target.read_json(meta_path)
    missing = sorted(g for g in meta if g not in src_games)
    if missing:
        shown = ", ".join(missing[:5]) + (
            f" (+{len(missing) - 5} more)" if len(missing) > 5 else ""
        )
        raise CorpusError(f"{source.root}: no {sport} game(s) {shown} to take documents from")
    games = docs = 0
    for game_id, files in meta.items():
        added = 0
        for key in GAME_DOC_TYPES:
            if files.get(key):  # the target's own document wins
                continue
            path = source.game_path(sport, game_id, key)
            if path is None:
                continue
            if not path.is_file():
                raise CorpusError(f"{source.rel(path)}: {key} of game {game_id} not found")
            files[key] = _copy(source, target, path)
            added += 1
        games += added > 0
        docs += added
    _write_json(meta_path, meta)
    return games, docs


def _season_documents(source: Corpus, target: Corpus, sport: str) -> int:
    """Every player and team season entry of the source that the target lacks."""
    copied = 0
    for entity_type, name in SEASON_METADATA.items():
        entries = source.season_entries(sport, entity_type)
        if not entries:
            continue
        path = target.sport_dir(sport) / name
        merged: dict[str, Any] = target.read_json(path) if path.is_file() else {}
        for entity_id, seasons in entries.items():
            have = merged.setdefault(entity_id, {})
            for code, files in seasons.items():
                if code in have:
                    continue
                entry: dict[str, str] = {}
                for key, rel in files.model_dump(exclude_none=True).items():
                    src = source.resolve(source.sport_dir(sport), rel)
                    if not src.is_file():
                        raise CorpusError(f"{source.rel(src)}: {key} of {entity_id} not found")
                    entry[key] = _copy(source, target, src)
                have[code] = entry
                copied += 1
        _write_json(path, merged)
    return copied


def add_documents(
    source_dir: Path, target_dir: Path, sports: Sequence[str] | None = None
) -> list[DocumentsAdded]:
    """Copy the game documents of every game in the target, and the season documents, from
    the source corpus; documents the target already has are kept. One line CorpusError when a
    target game (or sport) is missing from the source."""
    source, target = Corpus(source_dir), Corpus(target_dir)
    if source.root == target.root:
        raise CorpusError(f"{source_dir}: source and target are the same corpus")
    chosen = list(sports) if sports else target.sports()
    for sport in chosen:
        target.check_sport(sport)
        if sport not in source.sports():
            raise CorpusError(f"{source_dir}: no {sport} games to take documents from")
    out: list[DocumentsAdded] = []
    for sport in chosen:
        games, docs = _game_documents(source, target, sport)
        seasons = _season_documents(source, target, sport)
        out.append(
            DocumentsAdded(sport=sport, games=games, game_documents=docs, season_documents=seasons)
        )
    return out
