"""Request bodies, built as plain dicts so they can be checked against hand-written JSON.

Filters become `bool.filter` clauses (no scoring, cacheable); the same clauses go into a kNN
`filter` so HNSW search is pre-filtered, not post-filtered."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from playscout.search.backend_api import ClipChannel, ClipFilter, DocFilter, SearchError
from playscout.search.core.rules import check_date, check_doc_types
from playscout.search.elastic.mappings import OBSERVED_TEXT

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


# List filter fields -> keyword fields, in clause order (a `terms` clause each).
_DOC_TERMS = {
    "game_ids": "game_id",
    "doc_ids": "doc_id",
    "doc_types": "doc_type",
    "teams": "teams",
    "players": "players",
}
_CLIP_TERMS = {
    "game_ids": "game_id",
    "clip_ids": "clip_id",
    "periods": "period",
    "teams": "teams",
    "players": "players",
}


def _terms(f: DocFilter | ClipFilter, fields: dict[str, str]) -> Clauses:
    """One `terms` clause per set list field. An empty list is kept as `terms: []`, which
    matches nothing (base.py semantics)."""
    out: Clauses = []
    for name, field in fields.items():
        values: Sequence[Any] | None = getattr(f, name)
        if values is not None:
            out.append({"terms": {field: list(values)}})
    return out


def doc_filter_clauses(f: DocFilter | None) -> Clauses:
    if f is None:
        return []
    if f.doc_types is not None:
        check_doc_types(f.doc_types)
    out = _terms(f, _DOC_TERMS)
    if f.season is not None:
        out.append({"term": {"season": f.season}})
    if f.date_from is not None or f.date_to is not None:
        rng: dict[str, Any] = {"format": "strict_date"}
        if f.date_from is not None:
            rng["gte"] = check_date(f.date_from, "date_from")
        if f.date_to is not None:
            rng["lte"] = check_date(f.date_to, "date_to")
        out.append({"range": {"date": rng}})
    return out


def clip_filter_clauses(f: ClipFilter | None) -> Clauses:
    if f is None:
        return []
    out = _terms(f, _CLIP_TERMS)
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
    vector: Iterable[float],
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
