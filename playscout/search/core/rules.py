"""The request rules every backend applies, with their error texts in one place, so that one
bad call gets the same SearchError from the embedded index and from Elasticsearch (the
conformance suite pins the texts through both)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from playscout.corpus.models import DOC_TYPES
from playscout.search.backend_api import ClipChannel, ClipFilter, DocFilter, SearchError, SearchMode

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def unknown_sport(sport: str, have: list[str]) -> SearchError:
    return SearchError(f"unknown sport {sport!r}; this index has {have}")


def check_sizes(top_k: int, window: int) -> None:
    if top_k <= 0 or window <= 0:
        raise SearchError(f"top_k and window must be positive (got {top_k}, {window})")


def is_empty(query: str | None) -> bool:
    """A blank query means filter-only browsing (results in time order, no scores)."""
    return query is None or not query.strip()


def require_filter(filters: DocFilter | ClipFilter | None) -> None:
    """Browsing a whole sport is never what a caller means: an empty query needs a filter."""
    if filters is None or filters.is_empty():
        raise SearchError("an empty query needs at least one filter")


def check_channel(sport: str, channel: ClipChannel, have: list[ClipChannel]) -> None:
    if channel not in have:
        raise SearchError(f"clip channel {channel!r} is not in the {sport} index; have {have}")


def check_date(value: str, what: str) -> str:
    """A malformed date is an error, never a silent miss."""
    if not _DATE.match(value):
        raise SearchError(f"{what} {value!r} is not YYYY-MM-DD")
    return value


def check_doc_types(doc_types: Sequence[str]) -> None:
    bad = [t for t in doc_types if t not in DOC_TYPES]
    if bad:
        raise SearchError(f"unknown doc type(s) {bad}; known: {list(DOC_TYPES)}")


def no_query_embedder(what: str) -> SearchError:
    """`what`: "documents" or "clip channel 'caption'" (the vectors a query would be compared to)."""
    return SearchError(f"no query embedder was given for {what} at open")


def doc_mode(mode: SearchMode, *, vectors: bool, embedder: bool) -> SearchMode:
    """The branches a document search runs. Hybrid (the default) on an index built without
    passage vectors is BM25, as the visual channel runs whichever side it has; asking for dense
    there is an error, and so is an index with vectors opened without its query embedder (a
    setup mistake that must not pass as BM25 results)."""
    if mode == "bm25":
        return mode
    if not vectors:
        if mode == "hybrid":
            return "bm25"
        raise SearchError("this index has no document vectors: use mode='bm25'")
    if not embedder:
        raise no_query_embedder("documents")
    return mode


def visual_mode(mode: SearchMode, *, text: bool, vectors: bool, embedder: bool) -> SearchMode:
    """The branches a visual-channel search runs. Hybrid runs whichever side this index has
    (observed text, video vectors with a query text tower), so an index with only one of them
    still answers default-mode searches; an explicit mode that cannot run is an error."""
    if mode == "bm25" and not text:
        raise SearchError(
            "BM25 is unavailable on the visual channel (no transcript or audio-event text)"
        )
    if mode == "hybrid" and not (vectors and embedder):
        mode = "bm25" if text else "dense"
    if mode == "dense" and not vectors:
        raise SearchError("the visual channel has no video vectors: use mode='bm25'")
    if mode == "dense" and not embedder:
        raise no_query_embedder("clip channel 'visual'")
    if mode == "hybrid" and not text:
        mode = "dense"
    return mode


def clip_mode(
    channel: ClipChannel, mode: SearchMode, *, embedder: bool, text: bool, vectors: bool
) -> SearchMode:
    """The branches a clip search runs: the visual channel adapts hybrid to what the index has
    (visual_mode); the caption channel always has both sides. Dense needs a query embedder.
    `text`/`vectors` describe the visual channel and are ignored for captions."""
    if channel == "visual":
        mode = visual_mode(mode, text=text, vectors=vectors, embedder=embedder)
    if mode != "bm25" and not embedder:
        raise no_query_embedder(f"clip channel {channel!r}")
    return mode
