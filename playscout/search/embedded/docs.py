"""Read side of a sport's documents: passage-level BM25 + dense, fused, grouped by document."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from playscout.corpus.models import DOC_TYPES, DocumentRecord
from playscout.search.base import DocFilter, DocHit, SearchError, SearchMode
from playscout.search.embedded.blobs import BlobReader
from playscout.search.embedded.columns import Vocab, csr_any, date_to_int, load_column
from playscout.search.embedded.fusion import fuse
from playscout.search.embedded.highlight import clip_highlights
from playscout.search.embedded.spec import QueryEmbedder
from playscout.search.embedded.text import TextIndex
from playscout.search.embedded.vectors import VectorStore


def ranges_to_rows(ptr: np.ndarray, ords: np.ndarray) -> np.ndarray:
    """Concatenate the row ranges ptr[o]:ptr[o+1] of sorted ordinals (a sorted row array)."""
    starts = np.asarray(ptr[ords], dtype=np.int64)
    lengths = np.asarray(ptr[ords + 1], dtype=np.int64) - starts
    offs = np.concatenate([[0], np.cumsum(lengths)])
    return np.repeat(starts - offs[:-1], lengths) + np.arange(int(offs[-1]), dtype=np.int64)


class DocIndex:
    def __init__(
        self, root: Path, teams: Vocab, players: Vocab, embedder: QueryEmbedder | None
    ) -> None:
        self.records = BlobReader(root, "records")
        self.doc_ids: list[str] = json.loads((root / "doc_ids.json").read_text())
        self.ordinal = {d: i for i, d in enumerate(self.doc_ids)}
        self.games = Vocab(json.loads((root / "games.json").read_text()))
        self.teams, self.players = teams, players
        cols = root / "cols"
        self.col = {
            name: load_column(cols, name)
            for name in [
                "game",
                "doc_type",
                "season",
                "date",
                "team_ptr",
                "team_idx",
                "player_ptr",
                "player_idx",
                "pass_ptr",
                "pass_span",
                "pass_doc",
            ]
        }
        self.bm25 = TextIndex(root / "bm25")
        self.dense = VectorStore(root / "dense") if (root / "dense").is_dir() else None
        self.embedder = embedder
        self.exact = False

    def __len__(self) -> int:
        return len(self.doc_ids)

    def resolve(self, f: DocFilter) -> np.ndarray:
        """Sorted doc ordinals matching every set field."""
        c = self.col
        mask = np.ones(len(self), dtype=bool)
        if f.game_ids is not None:
            mask &= np.isin(c["game"], self.games.lookup(f.game_ids))
        if f.doc_ids is not None:
            m = np.zeros(len(self), dtype=bool)
            m[[self.ordinal[d] for d in f.doc_ids if d in self.ordinal]] = True
            mask &= m
        if f.doc_types is not None:
            bad = [t for t in f.doc_types if t not in DOC_TYPES]
            if bad:
                raise SearchError(f"unknown doc type(s) {bad}; known: {list(DOC_TYPES)}")
            mask &= np.isin(c["doc_type"], [DOC_TYPES.index(t) for t in f.doc_types])
        if f.teams is not None:
            mask &= csr_any(c["team_ptr"], c["team_idx"], None, self.teams.lookup(f.teams))
        if f.players is not None:
            mask &= csr_any(c["player_ptr"], c["player_idx"], None, self.players.lookup(f.players))
        if f.season is not None:
            mask &= np.asarray(c["season"]) == f.season
        if f.date_from is not None or f.date_to is not None:
            date = np.asarray(c["date"])
            mask &= date >= 0
            if f.date_from is not None:
                mask &= date >= date_to_int(f.date_from, "date_from")
            if f.date_to is not None:
                mask &= date <= date_to_int(f.date_to, "date_to")
        return np.flatnonzero(mask)

    def get(self, ordinals: Sequence[int]) -> list[DocumentRecord]:
        return [DocumentRecord.model_validate(r) for r in self.records.get_many(ordinals)]

    def search(
        self, query: str, filters: DocFilter | None, top_k: int, mode: SearchMode, window: int
    ) -> list[DocHit]:
        prows = None
        if filters is not None and not filters.is_empty():
            prows = ranges_to_rows(self.col["pass_ptr"], self.resolve(filters))
        bm25 = dense = None
        if mode in ("bm25", "hybrid"):
            bm25 = self.bm25.search(query, window, prows)
        if mode in ("dense", "hybrid"):
            if self.dense is None:
                raise SearchError("this index has no document vectors: use mode='bm25'")
            if self.embedder is None:
                raise SearchError("no query embedder was given for documents at open")
            qv = np.asarray(self.embedder.embed_queries([query]), dtype=np.float32)[0]
            dense = self.dense.search(qv, window, prows, exact=self.exact)
        pass_doc = self.col["pass_doc"]
        ranked = fuse(mode, bm25, dense, lambda r: f"{self.doc_ids[int(pass_doc[r])]}\x00{r:012d}")
        order: list[int] = []
        first: dict[int, int] = {}
        parts: dict[int, list[int]] = {}
        for i, row in enumerate(ranked.rows):
            doc = int(pass_doc[row])
            if doc not in first:
                if len(order) >= top_k:
                    continue
                first[doc] = i
                order.append(doc)
                parts[doc] = []
            parts[doc].append(row)
        records = self.get(order)
        spans = self.col["pass_span"]
        hits = []
        for doc, rec in zip(order, records, strict=True):
            text = rec.text
            hl = clip_highlights(text[int(spans[r, 0]) : int(spans[r, 1])] for r in parts[doc])
            i = first[doc]
            hits.append(
                DocHit(
                    doc_id=rec.doc_id,
                    score=ranked.primary(i),
                    scores=ranked.scores[i],
                    highlights=hl,
                    record=rec,
                )
            )
        return hits

    def browse(self, filters: DocFilter, top_k: int) -> list[DocHit]:
        ords = self.resolve(filters)[:top_k]
        return [DocHit(doc_id=r.doc_id, score=None, record=r) for r in self.get(ords.tolist())]
