"""BackendCore: the public SearchBackend search methods, written once for every engine.

A search runs the same steps whatever answers it: check the sport and sizes, browse in time
order when the query is empty (and a filter is given), else pick the branches (mode), run BM25
and/or dense with an explicit window, fuse by RRF, group passages by document, and build hits
with highlights. Only the engine calls differ; a backend implements those (the abstract `_...`
methods below) and the record reads (`get_documents`, `get_clips`, `channels`, `entities`),
so a rule changed here changes for every backend at once.

Filters reach the engine as an opaque "scope" (the embedded backend's row sets, the ES
backend's filter clauses); a scope is built once per search and shared by both branches.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from playscout.corpus.models import ClipRecord, DocumentRecord
from playscout.search.backend_api import (
    ClipChannel,
    ClipFilter,
    ClipHit,
    DocFilter,
    DocHit,
    SearchError,
    SearchMode,
)
from playscout.search.core import rules
from playscout.search.core.fusion import Candidate, fuse, group_passages
from playscout.search.core.highlight import clip_highlights, heard
from playscout.search.core.spec import QueryEmbedder, check_embedders


class BackendCore(ABC):
    """Subclasses call `__init__` with the index manifest (its "sports" maps each sport to its
    build info, "channels" included) and the query embedders by channel key."""

    def __init__(
        self, manifest: dict[str, Any], embedders: Mapping[str, QueryEmbedder | None] | None
    ) -> None:
        given = dict(embedders or {})
        check_embedders(manifest, given)
        self.manifest = manifest
        self.embedders: dict[str, QueryEmbedder] = {k: v for k, v in given.items() if v is not None}

    # -- engine: what each backend implements ------------------------------------------
    @abstractmethod
    def _doc_scope(self, sport: str, filters: DocFilter | None) -> Any:
        """The engine form of a passage filter; invalid values raise (rules.check_*)."""

    @abstractmethod
    def _doc_bm25(self, sport: str, query: str, scope: Any, k: int) -> list[Candidate]:
        """Top-k passages by BM25, best first, keys from fusion.passage_key."""

    @abstractmethod
    def _doc_dense(self, sport: str, vector: np.ndarray, scope: Any, k: int) -> list[Candidate]:
        """Top-k passages by cosine similarity, best first, keys from fusion.passage_key."""

    @abstractmethod
    def _has_doc_vectors(self, sport: str) -> bool: ...

    @abstractmethod
    def _passage_text(self, sport: str, record: DocumentRecord, payload: Any) -> str:
        """The text of a ranked passage of `record` (payload: what its candidate carried)."""

    @abstractmethod
    def _browse_documents(self, sport: str, filters: DocFilter, top_k: int) -> list[DocumentRecord]:
        """The first top_k matching documents by date, then doc_id."""

    @abstractmethod
    def _clip_scope(self, sport: str, filters: ClipFilter | None) -> Any: ...

    @abstractmethod
    def _clip_bm25(
        self, sport: str, channel: ClipChannel, query: str, scope: Any, k: int
    ) -> list[Candidate]:
        """Top-k clips by BM25 over the channel's text (captions, or observed text)."""

    @abstractmethod
    def _clip_dense(
        self, sport: str, channel: ClipChannel, vector: np.ndarray, scope: Any, k: int
    ) -> list[Candidate]: ...

    @abstractmethod
    def _visual_sides(self, sport: str) -> tuple[bool, bool]:
        """(observed text indexed, video vectors indexed) of the sport's visual channel."""

    @abstractmethod
    def _clip_records(
        self, sport: str, payloads: Sequence[Any], include_caption: bool
    ) -> list[ClipRecord]:
        """The records of ranked clips, in the given order."""

    @abstractmethod
    def _browse_clips(
        self, sport: str, filters: ClipFilter, top_k: int, include_caption: bool
    ) -> list[ClipRecord]:
        """The first top_k matching clips by game, then video start."""

    @abstractmethod
    def channels(self, sport: str) -> list[ClipChannel]: ...

    def unembedded(self, sport: str) -> list[ClipChannel]:
        """Clip channels with vectors but no query embedder (captions always have theirs)."""
        vectors = self._visual_sides(sport)[1] if "visual" in self.channels(sport) else False
        return ["visual"] if vectors and "visual" not in self.embedders else []

    @abstractmethod
    def entities(self, sport: str) -> tuple[list[str], list[str]]: ...

    def periods(self, sport: str) -> list[int] | None:
        """The periods the sport's clips are in, sorted, where the engine lists them cheaply;
        None: not known here (search_videos then only checks that a period counts from 1)."""
        return None

    @abstractmethod
    def get_documents(self, sport: str, doc_ids: Sequence[str]) -> list[DocumentRecord | None]: ...

    @abstractmethod
    def get_clips(
        self, sport: str, clip_ids: Sequence[str], include_caption: bool = False
    ) -> list[ClipRecord | None]: ...

    # -- shared ------------------------------------------------------------------------
    def sports(self) -> list[str]:
        return sorted(self.manifest["sports"])

    def _check_sport(self, sport: str) -> None:
        if sport not in self.manifest["sports"]:
            raise rules.unknown_sport(sport, self.sports())

    def _query_vector(self, key: str, query: str) -> np.ndarray:
        return np.asarray(self.embedders[key].embed_queries([query]), dtype=np.float32)[0]

    def search_documents(
        self,
        sport: str,
        query: str | None,
        filters: DocFilter | None = None,
        top_k: int = 20,
        mode: SearchMode = "hybrid",
        window: int = 200,
    ) -> list[DocHit]:
        """Passage-level search, grouped by document: a document ranks by its best passage and
        its highlights are its ranked passages, best first."""
        self._check_sport(sport)
        rules.check_sizes(top_k, window)
        if rules.is_empty(query):
            rules.require_filter(filters)
            assert filters is not None
            browsed = self._browse_documents(sport, filters, top_k)
            return [DocHit(doc_id=r.doc_id, score=None, record=r) for r in browsed]
        assert query is not None
        scope = self._doc_scope(sport, filters)
        mode = rules.doc_mode(
            mode, vectors=self._has_doc_vectors(sport), embedder="documents" in self.embedders
        )
        window = max(window, top_k)
        bm25 = dense = None
        if mode in ("bm25", "hybrid"):
            bm25 = self._doc_bm25(sport, query, scope, window)
        if mode in ("dense", "hybrid"):
            dense = self._doc_dense(sport, self._query_vector("documents", query), scope, window)
        fused = fuse(mode, bm25, dense)
        groups = group_passages(fused.keys, top_k)
        records = self.get_documents(sport, [g.doc_id for g in groups])
        hits: list[DocHit] = []
        for g, rec in zip(groups, records, strict=True):
            if rec is None:  # a passage without its document: a broken build, say so
                raise SearchError(f"passage of {g.doc_id!r} found but the document is missing")
            parts = (self._passage_text(sport, rec, fused.payloads[i]) for i in g.positions)
            hits.append(
                DocHit(
                    doc_id=g.doc_id,
                    score=fused.primary(g.first),
                    scores=fused.scores[g.first],
                    highlights=clip_highlights(parts),
                    record=rec,
                )
            )
        return hits

    def search_clips(
        self,
        sport: str,
        query: str | None,
        filters: ClipFilter | None = None,
        top_k: int = 100,
        channel: ClipChannel = "visual",
        mode: SearchMode = "hybrid",
        window: int = 500,
    ) -> list[ClipHit]:
        """The visual channel never reads captions (its highlights are what was heard); the
        caption channel is oracle mode and returns them. A single branch runs with k=top_k,
        hybrid with both branches over the window."""
        have = self.channels(sport)
        rules.check_sizes(top_k, window)
        rules.check_channel(sport, channel, have)
        oracle = channel == "caption"
        if rules.is_empty(query):
            rules.require_filter(filters)
            assert filters is not None
            browsed = self._browse_clips(sport, filters, top_k, include_caption=oracle)
            return [ClipHit(clip_id=r.clip_id, score=None, record=r) for r in browsed]
        assert query is not None
        text, vectors = self._visual_sides(sport) if channel == "visual" else (True, True)
        mode = rules.clip_mode(
            channel, mode, embedder=channel in self.embedders, text=text, vectors=vectors
        )
        scope = self._clip_scope(sport, filters)
        k = max(window, top_k) if mode == "hybrid" else top_k
        bm25 = dense = None
        if mode in ("bm25", "hybrid"):
            bm25 = self._clip_bm25(sport, channel, query, scope, k)
        if mode in ("dense", "hybrid"):
            vector = self._query_vector(channel, query)
            dense = self._clip_dense(sport, channel, vector, scope, k)
        fused = fuse(mode, bm25, dense)
        records = self._clip_records(sport, fused.payloads[:top_k], include_caption=oracle)
        return [
            ClipHit(
                clip_id=rec.clip_id,
                score=fused.primary(i),
                scores=fused.scores[i],
                highlights=clip_highlights([rec.caption]) if oracle else heard(rec, query),
                record=rec,
            )
            for i, rec in enumerate(records)
        ]
