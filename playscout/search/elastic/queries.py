"""Request bodies, built as plain dicts so they can be checked against hand-written JSON.

Filters become `bool.filter` clauses (no scoring, cacheable); the same clauses go into a kNN
`filter` so HNSW search is pre-filtered, not post-filtered."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from playscout.corpus.models import DOC_TYPES
from playscout.search.base import ClipChannel, ClipFilter, DocFilter, SearchError
from playscout.search.elastic.mappings import OBSERVED_TEXT

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
KNN_MAX = 10_000  # ES limit on num_candidates (and so on k)

DOC_SORT: list[dict[str, Any]] = [
    {"date": {"order": "asc", "missing": "_last"}},
    {"doc_id": {"order": "asc"}},
]
CLIP_SORT: list[dict[str, Any]] = [
    {"game_key": {"order": "asc"}},
    {"video_start": {"order": "asc"}},
    {"index": {"order": "asc"}},
]

Clauses = list[dict[str, Any]]

# The BM25 field of each clip channel: oracle captions, or what default mode may read (heard text).
CLIP_TEXT_FIELD: dict[ClipChannel, str] = {"caption": "caption", "visual": OBSERVED_TEXT}


def _terms(field: str, values: Sequence[Any]) -> dict[str, Any]:
    """An empty list is kept as `terms: []`, which matches nothing (base.py semantics)."""
    return {"terms": {field: list(values)}}


def _date(value: str, what: str) -> str:
    if not _DATE.match(value):
        raise SearchError(f"{what} {value!r} is not YYYY-MM-DD")
    return value


def doc_filter_clauses(f: DocFilter | None) -> Clauses:
    if f is None:
        return []
    out: Clauses = []
    if f.game_ids is not None:
        out.append(_terms("game_id", f.game_ids))
    if f.doc_ids is not None:
        out.append(_terms("doc_id", f.doc_ids))
    if f.doc_types is not None:
        bad = [t for t in f.doc_types if t not in DOC_TYPES]
        if bad:
            raise SearchError(f"unknown doc type(s) {bad}; known: {list(DOC_TYPES)}")
        out.append(_terms("doc_type", f.doc_types))
    if f.teams is not None:
        out.append(_terms("teams", f.teams))
    if f.players is not None:
        out.append(_terms("players", f.players))
    if f.season is not None:
        out.append({"term": {"season": f.season}})
    if f.date_from is not None or f.date_to is not None:
        rng: dict[str, Any] = {"format": "strict_date"}
        if f.date_from is not None:
            rng["gte"] = _date(f.date_from, "date_from")
        if f.date_to is not None:
            rng["lte"] = _date(f.date_to, "date_to")
        out.append({"range": {"date": rng}})
    return out


def clip_filter_clauses(f: ClipFilter | None) -> Clauses:
    if f is None:
        return []
    out: Clauses = []
    if f.game_ids is not None:
        out.append(_terms("game_id", f.game_ids))
    if f.clip_ids is not None:
        out.append(_terms("clip_id", f.clip_ids))
    if f.periods is not None:
        out.append(_terms("period", f.periods))
    if f.teams is not None:
        out.append(_terms("teams", f.teams))
    if f.players is not None:
        out.append(_terms("players", f.players))
    # overlap with [time_start, time_end): start < video_end and end > video_start
    if f.time_start is not None:
        out.append({"range": {"video_end": {"gt": f.time_start}}})
    if f.time_end is not None:
        out.append({"range": {"video_start": {"lt": f.time_end}}})
    return out


def bm25_body(field: str, query: str, filters: Clauses, size: int, source: Any) -> dict[str, Any]:
    return {
        "size": size,
        "query": {"bool": {"must": [{"match": {field: {"query": query}}}], "filter": filters}},
        "_source": source,
        "track_total_hits": False,
    }


def num_candidates_for(k: int, factor: float, floor: int = 100) -> int:
    """T9 used max(10 k, 100); capped at the ES limit and never below k."""
    return min(KNN_MAX, max(k, int(k * factor), floor))


def knn_body(
    field: str,
    vector: Sequence[float],
    filters: Clauses,
    k: int,
    num_candidates: int,
    source: Any,
) -> dict[str, Any]:
    if k > KNN_MAX:
        raise SearchError(f"kNN window {k} exceeds the Elasticsearch limit of {KNN_MAX}")
    knn: dict[str, Any] = {
        "field": field,
        "query_vector": [float(x) for x in vector],
        "k": k,
        "num_candidates": num_candidates,
    }
    if filters:
        knn["filter"] = filters
    return {"size": k, "knn": knn, "_source": source, "track_total_hits": False}


def browse_body(
    filters: Clauses,
    sort: list[dict[str, Any]],
    size: int,
    source: Any,
    search_after: list[Any] | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "size": size,
        "query": {"bool": {"filter": filters}},
        "sort": sort,
        "_source": source,
        "track_total_hits": False,
    }
    if search_after is not None:
        body["search_after"] = search_after
    return body
