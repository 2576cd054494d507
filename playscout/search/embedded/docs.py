"""Read side of a sport's documents: numpy filter columns resolve to document ordinals and
passage rows; BM25 (tantivy) and dense (vectors) answer per passage row. Fusion and grouping by
document are the shared core's (search/core/backend.py)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from playscout.corpus.models import DOC_TYPES, DocumentRecord
from playscout.search.backend_api import DocFilter
from playscout.search.core.fusion import Candidate, passage_key
from playscout.search.core.rules import check_doc_types
from playscout.search.embedded.blobs import BlobReader
from playscout.search.embedded.columns import Vocab, csr_any, date_to_int, load_columns
from playscout.search.embedded.text import TextIndex
from playscout.search.embedded.vectors import VectorStore


def ranges_to_rows(ptr: np.ndarray, ords: np.ndarray) -> np.ndarray:
    """Concatenate the row ranges ptr[o]:ptr[o+1] of sorted ordinals (a sorted row array)."""
    starts = np.asarray(ptr[ords], dtype=np.int64)
    lengths = np.asarray(ptr[ords + 1], dtype=np.int64) - starts
    offs = np.concatenate([[0], np.cumsum(lengths)])
    return np.repeat(starts - offs[:-1], lengths) + np.arange(int(offs[-1]), dtype=np.int64)


class DocIndex:
    def __init__(self, root: Path, teams: Vocab, players: Vocab) -> None:
        self.records = BlobReader(root, "records")
        self.doc_ids: list[str] = json.loads((root / "doc_ids.json").read_text())
        self.ordinal = {d: i for i, d in enumerate(self.doc_ids)}
        self.games = Vocab(json.loads((root / "games.json").read_text()))
        self.teams, self.players = teams, players
        self.col = load_columns(
            root / "cols",
            "game doc_type season date team_ptr team_idx player_ptr player_idx"
            " pass_ptr pass_span pass_doc",
        )
        self.bm25 = TextIndex(root / "bm25")
        self.dense = VectorStore.open(root / "dense") if (root / "dense").is_dir() else None

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
            check_doc_types(f.doc_types)
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

    def passage_rows(self, f: DocFilter | None) -> np.ndarray | None:
        """The passage rows of the documents a filter matches (None: no filter, every row)."""
        if f is None or f.is_empty():
            return None
        return ranges_to_rows(self.col["pass_ptr"], self.resolve(f))

    def candidates(self, found: tuple[np.ndarray, np.ndarray]) -> list[Candidate]:
        """(passage rows, scores) as ranked candidates carrying their row."""
        rows, scores = found
        docs = np.asarray(self.col["pass_doc"][rows]).tolist()  # one gather, not one per row
        return [
            (passage_key(self.doc_ids[d], r), s, r)
            for d, r, s in zip(docs, rows.tolist(), scores.tolist(), strict=True)
        ]

    def passage_text(self, record: DocumentRecord, row: int) -> str:
        start, end = self.col["pass_span"][row]
        return record.text[int(start) : int(end)]

    def browse(self, filters: DocFilter, top_k: int) -> list[DocumentRecord]:
        return self.get(self.resolve(filters)[:top_k].tolist())
