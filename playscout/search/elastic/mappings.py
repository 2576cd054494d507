"""Explicit mappings (no dynamic mapping surprises as in the reference, §2.1): keyword ids and
names, typed numbers and dates, English-analysed BM25 text, cosine dense vectors."""

from __future__ import annotations

from typing import Any

# ES dense_vector index_options types (8.12+; bbq_* from 8.16).
INDEX_OPTION_TYPES = (
    "hnsw",
    "int8_hnsw",
    "int4_hnsw",
    "bbq_hnsw",
    "flat",
    "int8_flat",
    "int4_flat",
    "bbq_flat",
)
DOC_VECTOR = "embedding"
CAPTION_VECTOR = "caption_vector"
VISUAL_VECTOR = "visual_vector"
VECTOR_FIELDS = (DOC_VECTOR, CAPTION_VECTOR, VISUAL_VECTOR)
# BM25 side of the visual channel: a clip's transcript + audio events as one text (the embedded
# backend's visual/bm25), set at ingest; not a ClipRecord field, so reads never return it.
OBSERVED_TEXT = "observed_text"

KEYWORD: dict[str, Any] = {"type": "keyword"}
INTEGER: dict[str, Any] = {"type": "integer"}
FLOAT: dict[str, Any] = {"type": "float"}
DATE: dict[str, Any] = {"type": "date", "format": "strict_date"}
STORED_ONLY: dict[str, Any] = {"type": "keyword", "index": False, "doc_values": False}
ENGLISH_TEXT: dict[str, Any] = {"type": "text", "analyzer": "english"}
UNINDEXED_TEXT: dict[str, Any] = {"type": "text", "index": False}

# Filterable fields shared by documents and their passages (passages carry copies: ES has no
# joins, so a filtered passage search needs them on the passage itself).
DOC_FILTER_FIELDS: dict[str, dict[str, Any]] = {
    "doc_id": KEYWORD,
    "game_id": KEYWORD,
    "doc_type": KEYWORD,
    "teams": KEYWORD,
    "players": KEYWORD,
    "season": INTEGER,
    "date": DATE,
}


def dense_vector(dims: int, index_options: str) -> dict[str, Any]:
    if index_options not in INDEX_OPTION_TYPES:
        raise ValueError(f"index_options {index_options!r} is not one of {INDEX_OPTION_TYPES}")
    if not 0 < dims <= 4096:
        raise ValueError(f"dense_vector dims must be in 1..4096, got {dims}")
    return {
        "type": "dense_vector",
        "dims": dims,
        "index": True,
        "similarity": "cosine",
        "index_options": {"type": index_options},
    }


def _strict(properties: dict[str, Any], vectors: list[str]) -> dict[str, Any]:
    """Vectors are kept out of _source: they live in the vector index, and returning 1024
    floats per hit would dominate response size."""
    out: dict[str, Any] = {"dynamic": "strict", "properties": properties}
    if vectors:
        out["_source"] = {"excludes": vectors}
    return out


def docs_mapping() -> dict[str, Any]:
    return _strict(
        {
            **DOC_FILTER_FIELDS,
            "sport": KEYWORD,
            "text": UNINDEXED_TEXT,
            "season_type": KEYWORD,
            "home_team": KEYWORD,
            "away_team": KEYWORD,
            "entity_type": KEYWORD,
            "entity_id": KEYWORD,
            "entity_name": KEYWORD,
        },
        [],
    )


def passages_mapping(dims: int | None, index_options: str) -> dict[str, Any]:
    props: dict[str, Any] = {
        **DOC_FILTER_FIELDS,
        "ord": INTEGER,
        "start": INTEGER,
        "end": INTEGER,
        "text": ENGLISH_TEXT,
    }
    if dims is not None:
        props[DOC_VECTOR] = dense_vector(dims, index_options)
    return _strict(props, [DOC_VECTOR] if dims is not None else [])


def clips_mapping(
    caption_dims: int | None, visual_dims: int | None, index_options: str
) -> dict[str, Any]:
    """`game_key` ("<date or 9999-99-99>|<game_id>") sorts games as the embedded backend
    does, so filter-only browsing is one sorted query."""
    props: dict[str, Any] = {
        "clip_id": KEYWORD,
        "sport": KEYWORD,
        "game_id": KEYWORD,
        "game_key": KEYWORD,
        "index": INTEGER,
        "period": INTEGER,
        "video_start": FLOAT,
        "video_end": FLOAT,
        "clock_remaining_start": FLOAT,
        "clock_remaining_end": FLOAT,
        "clock_elapsed_start": FLOAT,
        "clock_elapsed_end": FLOAT,
        "teams": KEYWORD,
        "players": KEYWORD,
        "caption": ENGLISH_TEXT if caption_dims is not None else UNINDEXED_TEXT,
        "transcript": UNINDEXED_TEXT,
        "audio_events": UNINDEXED_TEXT,
        OBSERVED_TEXT: ENGLISH_TEXT,
        "clip_path": STORED_ONLY,
        "date": DATE,
        "season": INTEGER,
    }
    vectors = []
    if caption_dims is not None:
        props[CAPTION_VECTOR] = dense_vector(caption_dims, index_options)
        vectors.append(CAPTION_VECTOR)
    if visual_dims is not None:
        props[VISUAL_VECTOR] = dense_vector(visual_dims, index_options)
        vectors.append(VISUAL_VECTOR)
    return _strict(props, vectors)


def meta_mapping() -> dict[str, Any]:
    """The manifest is free-form JSON kept in _source only."""
    return {"dynamic": False, "properties": {"kind": KEYWORD}}


def build_settings(shards: int) -> dict[str, Any]:
    """Bulk-load settings: no refresh, no replicas; `serving_settings` restores them."""
    return {"number_of_shards": shards, "number_of_replicas": 0, "refresh_interval": "-1"}


def serving_settings(replicas: int) -> dict[str, Any]:
    return {"number_of_replicas": replicas, "refresh_interval": None}
