"""Hybrid ranking shared by every backend: each branch (BM25, dense) is a ranked candidate list
from its own window; hybrid fuses them by RRF (k=60, base.rrf_fuse), a single-branch mode keeps
the branch's order.

Evidence is looked up per candidate key, never zipped by position, so a hit's bm25/dense scores
and ranks are always its own (reference defect 1). A candidate carries an engine payload (a row,
a stored source, a passage text) that the backend gets back for the hits it has to materialise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from playscout.search.backend_api import RRF_K, HitScores, SearchMode, rrf_fuse

# (key, score, payload), best first. The key is the id whose string order breaks RRF ties:
# a clip id, or passage_key() for a document passage.
Candidate = tuple[str, float, Any]


def passage_key(doc_id: str, ordinal: int) -> str:
    """Tie-break key of a passage: its document id first, then its position in reading order
    (any number that grows along the document: a row or a passage ordinal)."""
    return f"{doc_id}\x00{ordinal:012d}"


def passage_doc(key: str) -> str:
    """The document id inside a passage_key."""
    return key.partition("\x00")[0]


class Evidence:
    """Per-branch evidence of fused candidates, built as HitScores only for the positions a
    caller reads (a hybrid search fuses hundreds of candidates and returns a few)."""

    def __init__(
        self,
        keys: list[str],
        rrf: list[float | None],
        bm25: dict[str, tuple[int, float]],
        dense: dict[str, tuple[int, float]],
    ) -> None:
        self._keys, self._rrf, self._bm25, self._dense = keys, rrf, bm25, dense

    def __len__(self) -> int:
        return len(self._keys)

    def __getitem__(self, i: int) -> HitScores:
        key = self._keys[i]
        bi, di = self._bm25.get(key), self._dense.get(key)
        return HitScores(
            rrf=self._rrf[i],
            bm25=bi[1] if bi is not None else None,
            bm25_rank=bi[0] + 1 if bi is not None else None,
            dense=di[1] if di is not None else None,
            dense_rank=di[0] + 1 if di is not None else None,
        )


@dataclass
class Fused:
    """Candidates in final order with their per-branch evidence."""

    keys: list[str]
    payloads: list[Any]
    scores: Evidence

    def primary(self, i: int) -> float | None:
        """The score the ranking used: RRF in hybrid mode, else the one branch's score."""
        s = self.scores[i]
        return s.rrf if s.rrf is not None else (s.bm25 if s.bm25 is not None else s.dense)


def fuse(
    mode: SearchMode, bm25: Sequence[Candidate] | None, dense: Sequence[Candidate] | None
) -> Fused:
    b, d = list(bm25 or ()), list(dense or ())
    b_at = {c[0]: (i, c[1]) for i, c in enumerate(b)}
    d_at = {c[0]: (i, c[1]) for i, c in enumerate(d)}
    payload = {c[0]: c[2] for c in (*d, *b)}
    pairs: Sequence[tuple[str, float | None]]
    if mode == "hybrid":
        pairs = rrf_fuse([[c[0] for c in b], [c[0] for c in d]], k=RRF_K)
    else:
        pairs = [(c[0], None) for c in (b if mode == "bm25" else d)]
    keys = [k for k, _ in pairs]
    evidence = Evidence(keys, [s for _, s in pairs], b_at, d_at)
    return Fused(keys, [payload[k] for k in keys], evidence)


@dataclass
class DocGroup:
    """One document of a passage-level ranking: where its best passage stands (its score) and
    the positions of all its ranked passages (its highlights, best first)."""

    doc_id: str
    first: int
    positions: list[int]


def group_passages(keys: Sequence[str], top_k: int) -> list[DocGroup]:
    """The first `top_k` documents in order of their best passage; passages of a document that
    did not make the cut are skipped, later passages of one that did are kept."""
    groups: dict[str, DocGroup] = {}
    for i, key in enumerate(keys):
        doc_id = passage_doc(key)
        group = groups.get(doc_id)
        if group is None:
            if len(groups) >= top_k:
                continue
            group = groups[doc_id] = DocGroup(doc_id, i, [])
        group.positions.append(i)
    return list(groups.values())
