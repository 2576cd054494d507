"""Read side of a sport's clips: filters on numpy columns (a game is a contiguous row range),
channels "caption" (oracle: BM25 + caption vectors) and "visual" (video vectors and/or BM25 over
observed text: transcript + audio events). Mode selection and fusion are the shared core's."""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from playscout.corpus.models import ClipRecord, split_clip_id
from playscout.search.backend_api import ClipChannel, ClipFilter
from playscout.search.core.fusion import Candidate
from playscout.search.embedded.blobs import BlobReader
from playscout.search.embedded.columns import (
    Postings,
    Vocab,
    column_values,
    intersect,
    load_columns,
    materialise,
    restrict,
)
from playscout.search.embedded.text import TextIndex
from playscout.search.embedded.vectors import RowRange, RowSet, VectorStore


class ClipIndex:
    def __init__(self, root: Path, teams: Vocab, players: Vocab) -> None:
        self.records = BlobReader(root, "records")
        self.captions = BlobReader(root, "captions")
        self.n = len(self.records)
        self.games: list[str] = json.loads((root / "games.json").read_text())
        self.game_ord = {g: i for i, g in enumerate(self.games)}
        self.teams, self.players = teams, players
        self.col = load_columns(
            root / "cols",
            "game index period vstart vend team_ptr team_idx player_ptr player_idx game_ptr",
        )
        self._postings: dict[str, Postings] = {}
        self._postings_lock = threading.Lock()
        self.bm25: dict[str, TextIndex] = {}
        self.dense: dict[str, VectorStore] = {}
        if (root / "caption").is_dir():
            self.bm25["caption"] = TextIndex(root / "caption" / "bm25")
            self.dense["caption"] = VectorStore.open(root / "caption" / "dense")
        if (root / "visual" / "dense").is_dir():
            self.dense["visual"] = VectorStore.open(root / "visual" / "dense")
        if (root / "visual" / "bm25").is_dir():
            self.bm25["visual"] = TextIndex(root / "visual" / "bm25")

    def channels(self) -> list[ClipChannel]:
        return [c for c in ("visual", "caption") if c in self.dense or c in self.bm25]

    @functools.cached_property
    def _periods(self) -> tuple[int, ...]:
        return tuple(int(p) for p in np.unique(np.asarray(self.col["period"])))

    def periods(self) -> list[int]:
        """The periods the clips are in, sorted (one pass over the period column, once)."""
        return list(self._periods)

    def game_range(self, game: int) -> RowRange:
        ptr = self.col["game_ptr"]
        return RowRange(int(ptr[game]), int(ptr[game + 1]))

    def clip_id(self, row: int) -> str:
        return f"{self.games[int(self.col['game'][row])]}_{int(self.col['index'][row])}"

    def rows_of(self, clip_ids: Sequence[str]) -> list[int | None]:
        out: list[int | None] = []
        for cid in clip_ids:
            try:
                game_id, idx = split_clip_id(cid)
            except ValueError:
                out.append(None)
                continue
            g = self.game_ord.get(game_id)
            if g is None:
                out.append(None)
                continue
            r = self.game_range(g)
            found = np.flatnonzero(np.asarray(self.col["index"][r.start : r.stop]) == idx)
            out.append(r.start + int(found[0]) if len(found) else None)
        return out

    def postings(self, column: str) -> Postings:
        """The inverted `team` or `player` column, built on first use."""
        with self._postings_lock:
            found = self._postings.get(column)
            if found is None:
                found = Postings(self.col[f"{column}_ptr"], self.col[f"{column}_idx"])
                self._postings[column] = found
            return found

    def resolve(self, f: ClipFilter) -> RowSet:
        c, n = self.col, self.n
        rows: RowSet = None
        if f.game_ids is not None:
            games = sorted({self.game_ord[g] for g in f.game_ids if g in self.game_ord})
            if len(games) == 1:
                rows = self.game_range(games[0])
            else:
                rows = np.concatenate(
                    [materialise(self.game_range(g), n) for g in games] or [np.zeros(0, np.int64)]
                )
        if f.clip_ids is not None:
            found = sorted({r for r in self.rows_of(f.clip_ids) if r is not None})
            rows = intersect(rows, np.asarray(found, dtype=np.int64), n)
        # Teams and players first, from their postings: they keep few rows, so the masks
        # below read their columns at those rows only.
        if f.teams is not None:
            rows = intersect(rows, self.postings("team").rows_with(self.teams.lookup(f.teams)), n)
        if f.players is not None:
            wanted = self.players.lookup(f.players)
            rows = intersect(rows, self.postings("player").rows_with(wanted), n)
        if f.periods is not None:
            rows = restrict(rows, np.isin(column_values(c["period"], rows), f.periods), n)
        if f.time_start is not None:
            rows = restrict(rows, column_values(c["vend"], rows) > f.time_start, n)
        if f.time_end is not None:
            rows = restrict(rows, column_values(c["vstart"], rows) < f.time_end, n)
        return rows

    def get(self, rows: Sequence[int], include_caption: bool) -> list[ClipRecord]:
        out = []
        for r in rows:
            data = self.records.get(int(r))
            if include_caption:
                data["caption"] = self.captions.get(int(r))
            out.append(ClipRecord.model_validate(data))
        return out

    def candidates(self, found: tuple[np.ndarray, np.ndarray]) -> list[Candidate]:
        """(rows, scores) as ranked candidates carrying their row."""
        rows, scores = found
        games = np.asarray(self.col["game"][rows]).tolist()  # one gather, not one per row
        index = np.asarray(self.col["index"][rows]).tolist()
        return [
            (f"{self.games[g]}_{i}", s, r)
            for g, i, r, s in zip(games, index, rows.tolist(), scores.tolist(), strict=True)
        ]

    def browse(self, filters: ClipFilter, top_k: int, include_caption: bool) -> list[ClipRecord]:
        rows = materialise(self.resolve(filters), self.n)[:top_k]
        return self.get(rows.tolist(), include_caption)
