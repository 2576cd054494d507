"""The one search-backend interface: every backend (embedded, Elasticsearch) implements it and
passes the conformance suite, playscout/search/conformance/.

Filters are resolved values (canonical team/player names, explicit doc types): resolving what a
user or model typed is the tools' job, so that every resolution can be reported.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from playscout.corpus.models import ClipRecord, DocumentRecord
from playscout.errors import PlayscoutError

SearchMode = Literal["bm25", "dense", "hybrid"]
# Which clip representation a search uses. "visual": what the video shows and sounds like
# (default mode, never sees captions): video embeddings (dense) and BM25 over observed text
# (transcript + audio events), either or both; "caption": ground-truth captions (oracle mode,
# BM25 + caption embeddings).
ClipChannel = Literal["visual", "caption"]

RRF_K = 60
# Highlights of one hit, joined with HIGHLIGHT_SEP, are at most HIGHLIGHT_MAX_CHARS long.
HIGHLIGHT_MAX_CHARS = 500
HIGHLIGHT_SEP = "\n... "


class DocFilter(BaseModel):
    """Every set field must hold (AND); list fields are any-of, and an empty list matches
    nothing. Unknown names match nothing; a malformed date or unknown doc type is a SearchError."""

    game_ids: list[str] | None = None
    doc_ids: list[str] | None = None
    doc_types: list[str] | None = None
    teams: list[str] | None = None  # any-of
    players: list[str] | None = None  # any-of
    season: int | None = None
    date_from: str | None = None  # inclusive, YYYY-MM-DD
    date_to: str | None = None  # inclusive

    def is_empty(self) -> bool:
        return all(v is None for v in self.model_dump().values())


class ClipFilter(BaseModel):
    """As DocFilter: fields AND together, lists are any-of, an empty list matches nothing."""

    game_ids: list[str] | None = None
    clip_ids: list[str] | None = None
    periods: list[int] | None = None
    teams: list[str] | None = None  # any-of
    players: list[str] | None = None  # any-of
    # Overlap with [start, end) in seconds of the game video: start < window_end and end > window_start.
    time_start: float | None = None
    time_end: float | None = None

    def is_empty(self) -> bool:
        return all(v is None for v in self.model_dump().values())


class HitScores(BaseModel):
    """Per-branch evidence of a hit. None where the branch did not run or did not find it."""

    rrf: float | None = None
    bm25: float | None = None
    dense: float | None = None  # cosine similarity in [-1, 1]
    bm25_rank: int | None = None  # 1-based
    dense_rank: int | None = None


class DocHit(BaseModel):
    doc_id: str
    score: float | None  # the score the ranking used; None for filter-only browse
    scores: HitScores = Field(default_factory=HitScores)
    highlights: list[str] = Field(default_factory=list)
    record: DocumentRecord


class ClipHit(BaseModel):
    clip_id: str
    score: float | None
    scores: HitScores = Field(default_factory=HitScores)
    highlights: list[str] = Field(default_factory=list)
    record: ClipRecord


class SearchError(PlayscoutError, ValueError):
    """A search request that cannot be answered (bad filter, unknown channel, unknown id)."""


class IndexOpenError(PlayscoutError, RuntimeError):
    """An index that cannot be opened (missing, corrupt, other schema version, embedder
    mismatch); the message is one line saying what to do."""


@runtime_checkable
class SearchBackend(Protocol):
    """Read side of an index. Results of an empty query with filters are in time order
    (documents by date then doc_id, clips by game then video start)."""

    def sports(self) -> list[str]: ...

    def search_documents(
        self,
        sport: str,
        query: str | None,
        filters: DocFilter | None = None,
        top_k: int = 20,
        mode: SearchMode = "hybrid",
        window: int = 200,
    ) -> list[DocHit]: ...

    def search_clips(
        self,
        sport: str,
        query: str | None,
        filters: ClipFilter | None = None,
        top_k: int = 100,
        channel: ClipChannel = "visual",
        mode: SearchMode = "hybrid",
        window: int = 500,
    ) -> list[ClipHit]: ...

    def get_documents(self, sport: str, doc_ids: Sequence[str]) -> list[DocumentRecord | None]: ...

    def get_clips(
        self, sport: str, clip_ids: Sequence[str], include_caption: bool = False
    ) -> list[ClipRecord | None]:
        """Records by id (None for unknown ids). Captions are oracle-only ground truth: they are
        blank unless include_caption is set."""
        ...

    def channels(self, sport: str) -> list[ClipChannel]: ...

    def unembedded(self, sport: str) -> list[ClipChannel]:
        """Clip channels holding vectors that this backend was opened without a query
        embedder for (their dense search would fail): the release's video vectors without
        their text tower."""
        ...

    def entities(self, sport: str) -> tuple[list[str], list[str]]:
        """Canonical (teams, players) of a sport, for name resolution."""
        ...


def rrf_fuse(ranked_lists: Iterable[Sequence[str]], k: int = RRF_K) -> list[tuple[str, float]]:
    """Reciprocal rank fusion, sum of 1/(k + rank) with 1-based ranks; ties broken by id so the
    order is deterministic."""
    fused: dict[str, float] = {}
    for ids in ranked_lists:
        for rank, key in enumerate(ids, start=1):
            fused[key] = fused.get(key, 0.0) + 1.0 / (k + rank)
    return sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))
