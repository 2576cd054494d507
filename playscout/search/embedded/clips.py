"""Read side of a sport's clips: filters on numpy columns (a game is a contiguous row range),
channels "caption" (oracle: BM25 + caption vectors) and "visual" (video vectors and/or BM25 over
observed text: transcript + audio events)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from playscout.corpus.models import ClipRecord, split_clip_id
from playscout.search.base import (
    ClipChannel,
    ClipFilter,
    ClipHit,
    SearchError,
    SearchMode,
    visual_mode,
)
from playscout.search.embedded.blobs import BlobReader
from playscout.search.embedded.columns import (
    Vocab,
    column_values,
    csr_any,
    intersect,
    load_column,
    materialise,
    restrict,
)
from playscout.search.embedded.fusion import fuse
from playscout.search.embedded.highlight import clip_highlights, heard
from playscout.search.embedded.spec import QueryEmbedder
from playscout.search.embedded.text import TextIndex
from playscout.search.embedded.vectors import RowRange, RowSet, VectorStore


class ClipIndex:
    def __init__(
        self,
        root: Path,
        teams: Vocab,
        players: Vocab,
        embedders: dict[str, QueryEmbedder | None],
    ) -> None:
        self.records = BlobReader(root, "records")
        self.captions = BlobReader(root, "captions")
        self.n = len(self.records)
        self.games: list[str] = json.loads((root / "games.json").read_text())
        self.game_ord = {g: i for i, g in enumerate(self.games)}
        self.teams, self.players = teams, players
        cols = root / "cols"
        self.col = {
            name: load_column(cols, name)
            for name in [
                "game",
                "index",
                "period",
                "vstart",
                "vend",
                "team_ptr",
                "team_idx",
                "player_ptr",
                "player_idx",
                "game_ptr",
            ]
        }
        self.bm25: dict[str, TextIndex] = {}
        self.dense: dict[str, VectorStore] = {}
        if (root / "caption").is_dir():
            self.bm25["caption"] = TextIndex(root / "caption" / "bm25")
            self.dense["caption"] = VectorStore(root / "caption" / "dense")
        if (root / "visual" / "dense").is_dir():
            self.dense["visual"] = VectorStore(root / "visual" / "dense")
        if (root / "visual" / "bm25").is_dir():
            self.bm25["visual"] = TextIndex(root / "visual" / "bm25")
        self.embedders = embedders
        self.exact = False

    def channels(self) -> list[ClipChannel]:
        return [c for c in ("visual", "caption") if c in self.dense or c in self.bm25]

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
        if f.periods is not None:
            rows = restrict(rows, np.isin(column_values(c["period"], rows), f.periods), n)
        if f.teams is not None:
            ids = self.teams.lookup(f.teams)
            rows = restrict(rows, csr_any(c["team_ptr"], c["team_idx"], rows, ids), n)
        if f.players is not None:
            ids = self.players.lookup(f.players)
            rows = restrict(rows, csr_any(c["player_ptr"], c["player_idx"], rows, ids), n)
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

    def search(
        self,
        query: str,
        filters: ClipFilter | None,
        top_k: int,
        channel: ClipChannel,
        mode: SearchMode,
        window: int,
    ) -> list[ClipHit]:
        if channel not in self.channels():
            raise SearchError(
                f"clip channel {channel!r} is not in this index; have {self.channels()}"
            )
        embedder = self.embedders.get(channel)
        if channel == "visual":
            mode = visual_mode(
                mode,
                text="visual" in self.bm25,
                vectors="visual" in self.dense,
                embedder=embedder is not None,
            )
        rows = None if filters is None or filters.is_empty() else self.resolve(filters)
        if embedder is None and mode != "bm25":
            raise SearchError(f"no query embedder was given for clip channel {channel!r} at open")
        bm25 = dense = None
        if mode in ("bm25", "hybrid"):
            bm25 = self.bm25[channel].search(query, window if mode == "hybrid" else top_k, rows)
        if mode in ("dense", "hybrid"):
            assert embedder is not None
            qv = np.asarray(embedder.embed_queries([query]), dtype=np.float32)[0]
            k = window if mode == "hybrid" else top_k
            dense = self.dense[channel].search(qv, k, rows, exact=self.exact)
        ranked = fuse(mode, bm25, dense, self.clip_id)
        chosen = ranked.rows[:top_k]
        oracle = channel == "caption"
        hits = []
        for i, rec in enumerate(self.get(chosen, include_caption=oracle)):
            hits.append(
                ClipHit(
                    clip_id=rec.clip_id,
                    score=ranked.primary(i),
                    scores=ranked.scores[i],
                    highlights=clip_highlights([rec.caption]) if oracle else heard(rec, query),
                    record=rec,
                )
            )
        return hits

    def browse(self, filters: ClipFilter, top_k: int, include_caption: bool) -> list[ClipHit]:
        rows = materialise(self.resolve(filters), self.n)[:top_k]
        return [
            ClipHit(clip_id=r.clip_id, score=None, record=r)
            for r in self.get(rows.tolist(), include_caption)
        ]
