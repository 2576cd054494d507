"""build_elasticsearch: load sources into fresh versioned indices, then switch every alias in
one atomic `_aliases` call. A failed build deletes what it created and leaves the old aliases
(and so the old index) serving; old indices are deleted only after the switch."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from elasticsearch import ApiError, Elasticsearch, NotFoundError, TransportError

from playscout.search.core.build import (
    IndexExistsError,
    Progress,
    SportSource,
    VisualVectorSource,
    channel_entry,
    check_new_sport,
    no_visual_vectors,
)
from playscout.search.core.spec import DocumentEmbedder
from playscout.search.core.units import DocUnits, PlayscoutUnits
from playscout.search.elastic import mappings as mp
from playscout.search.elastic.client import make_client
from playscout.search.elastic.ingest import SportStats, bulk_load, clip_actions, doc_actions
from playscout.search.elastic.manifest import (
    FORMAT,
    MANIFEST_ID,
    SCHEMA_VERSION,
    entities_id,
    package_versions,
    read_manifest_or_none,
)
from playscout.search.elastic.names import Names, check_prefix, check_sport, new_build_id


@dataclass
class ElasticBuildSummary:
    url: str
    prefix: str
    build_id: str
    seconds: float
    sports: dict[str, dict[str, Any]] = field(default_factory=dict)
    indices: dict[str, str] = field(default_factory=dict)  # alias -> concrete index


@dataclass
class _Build:
    es: Elasticsearch
    names: Names
    build_id: str
    index_options: str
    shards: int
    replicas: int
    chunk_size: int
    progress: Progress | None
    created: list[str] = field(default_factory=list)
    aliases: dict[str, str] = field(default_factory=dict)

    def create(self, alias: str, mapping: dict[str, Any]) -> str:
        index = Names.versioned(alias, self.build_id)
        self.es.indices.create(
            index=index, mappings=mapping, settings=mp.build_settings(self.shards)
        )
        self.created.append(index)
        self.aliases[alias] = index
        return index

    def finish_index(self, index: str) -> None:
        self.es.indices.put_settings(index=index, settings=mp.serving_settings(self.replicas))
        self.es.indices.refresh(index=index)


def _load_sport(
    b: _Build,
    source: SportSource,
    doc_embedder: DocumentEmbedder | None,
    caption_embedder: DocumentEmbedder | None,
    visual: VisualVectorSource | None,
    units: DocUnits,
    known: Mapping[str, dict[str, Any]],
) -> tuple[dict[str, Any], SportStats]:
    sport = check_sport(source.sport)
    t0 = time.perf_counter()
    n = b.names
    docs = b.create(n.alias(sport, "docs"), mp.docs_mapping())
    dims = doc_embedder.dim if doc_embedder is not None else None
    passages = b.create(n.alias(sport, "passages"), mp.passages_mapping(dims, b.index_options))
    stats = SportStats()
    acts = doc_actions(sport, source.documents, docs, passages, doc_embedder, stats, units)
    bulk_load(b.es, acts, sport, f"{sport} documents", b.progress, b.chunk_size)
    # The visual dim is known only from the first vectors; probe one clip lazily.
    clips_iter = iter(source.clips)
    first = next(clips_iter, None)
    visual_dim = None
    if visual is not None and first is not None:
        visual_dim = int(visual.vectors_for(sport, [first.clip_id]).shape[1])
    cap_dim = caption_embedder.dim if caption_embedder is not None else None
    clips = b.create(
        n.alias(sport, "clips"), mp.clips_mapping(cap_dim, visual_dim, b.index_options)
    )
    acts = clip_actions(
        sport, _chain(first, clips_iter), clips, caption_embedder, visual, stats, units
    )
    bulk_load(b.es, acts, sport, f"{sport} clips", b.progress, b.chunk_size)
    if visual is not None and visual_dim is None:
        raise no_visual_vectors(sport)
    for index in (docs, passages, clips):
        b.finish_index(index)
    channels: dict[str, Any] = {}
    style = units.style
    if doc_embedder is not None:
        channels["documents"] = channel_entry(
            doc_embedder, doc_embedder.dim, known.get("documents"), style
        )
    if caption_embedder is not None:
        channels["caption"] = channel_entry(
            caption_embedder, caption_embedder.dim, known.get("caption"), style
        )
    if visual is not None:
        channels["visual"] = channel_entry(visual, visual_dim, known.get("visual"))
    info = {
        "documents": stats.documents,
        "passages": stats.passages,
        "clips": stats.clips,
        "observed_clips": stats.observed,
        "games": len(stats.games),
        "teams": len(stats.teams),
        "players": len(stats.players),
        "channels": channels,
        "build_seconds": round(time.perf_counter() - t0, 3),
    }
    return info, stats


def _chain(first: Any, rest: Iterator[Any]) -> Iterator[Any]:
    if first is not None:
        yield first
    yield from rest


def _write_meta(b: _Build, sports: dict[str, Any], stats: dict[str, SportStats], t0: float) -> None:
    meta = b.create(b.names.meta(), mp.meta_mapping())
    manifest = {
        "kind": "manifest",
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "build_id": b.build_id,
        "build_seconds": round(time.perf_counter() - t0, 3),
        "index_options": b.index_options,
        "packages": package_versions(),
        "sports": sports,
        "indices": dict(b.aliases),
    }
    for sport, st in stats.items():
        body = {"kind": "entities", "teams": sorted(st.teams), "players": sorted(st.players)}
        b.es.index(index=meta, id=entities_id(sport), document=body)
    b.es.index(index=meta, id=MANIFEST_ID, document=manifest)
    b.finish_index(meta)


def _swap_aliases(es: Elasticsearch, new: dict[str, str], old: dict[str, Any] | None) -> list[str]:
    """One `_aliases` request: ES applies all its actions atomically. Returns old indices."""
    names = set(new) | set((old or {}).get("indices", {}))
    actions: list[dict[str, Any]] = []
    retired: list[str] = []
    for alias in sorted(names):
        try:
            current = dict(es.indices.get_alias(name=alias))
        except NotFoundError:
            current = {}
        for index in current:
            actions.append({"remove": {"index": index, "alias": alias}})
            retired.append(index)
    actions += [{"add": {"index": idx, "alias": alias}} for alias, idx in sorted(new.items())]
    es.indices.update_aliases(actions=actions)
    return sorted(set(retired) - set(new.values()))


def _drop(es: Elasticsearch, indices: Iterable[str]) -> None:
    for index in indices:
        with contextlib.suppress(ApiError, TransportError):  # best effort, never mask the cause
            es.indices.delete(index=index)


def build_elasticsearch(
    url: str,
    sources: Iterable[SportSource],
    doc_embedder: DocumentEmbedder | None,
    caption_embedder: DocumentEmbedder | None,
    visual_vectors: VisualVectorSource | None = None,
    prefix: str = "playscout",
    progress: Progress | None = None,
    overwrite: bool = False,
    index_options: str = "int8_hnsw",
    *,
    client: Elasticsearch | None = None,
    shards: int = 1,
    replicas: int = 0,
    chunk_size: int = 500,
    units: DocUnits | None = None,
    identities: Mapping[str, dict[str, Any]] | None = None,
) -> ElasticBuildSummary:
    """Build (or, with overwrite, replace) the index set under `prefix` at `url`.

    `client` overrides the default client (auth, TLS, a test transport); `units` and
    `identities` as for the embedded build (search/kind.BuildOptions)."""
    names = Names(check_prefix(prefix))
    if index_options not in mp.INDEX_OPTION_TYPES:
        raise ValueError(f"index_options {index_options!r} is not one of {mp.INDEX_OPTION_TYPES}")
    es = client if client is not None else make_client(url, request_timeout=120.0)
    old = read_manifest_or_none(es, names)
    if old is not None and not overwrite:
        raise IndexExistsError(
            f"{url} already has a playscout index with prefix {prefix!r}; "
            f"pass {IndexExistsError.ARGUMENT} to replace it"
        )
    t0 = time.perf_counter()
    b = _Build(es, names, new_build_id(), index_options, shards, replicas, chunk_size, progress)
    sports: dict[str, Any] = {}
    stats: dict[str, SportStats] = {}
    try:
        for source in sources:
            check_new_sport(source.sport, sports)
            sports[source.sport], stats[source.sport] = _load_sport(
                b,
                source,
                doc_embedder,
                caption_embedder,
                visual_vectors,
                units or PlayscoutUnits(),
                identities or {},
            )
        _write_meta(b, sports, stats, t0)
        retired = _swap_aliases(es, b.aliases, old)
    except BaseException:
        _drop(es, b.created)
        raise
    _drop(es, retired)
    return ElasticBuildSummary(
        url, prefix, b.build_id, round(time.perf_counter() - t0, 3), sports, dict(b.aliases)
    )


def orphan_indices(es: Elasticsearch, prefix: str) -> list[str]:
    """Indices under `prefix` that no alias points at (what a crashed build may leave)."""
    pattern = f"{check_prefix(prefix)}-*"
    indices = es.indices.get_alias(index=pattern)
    return sorted(i for i, v in indices.items() if not v.get("aliases"))
