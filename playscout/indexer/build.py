"""Corpus -> index -> backend: the glue the CLI, the API and benchmarks share.

The index manifest records which embedder made each channel's vectors; opening rebuilds those
same embedders for queries, so a query is never embedded by another model.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from playscout.corpus import Corpus, CorpusError
from playscout.embed import (
    Embedder,
    EmbeddingError,
    KeyedEmbedder,
    PrecomputedVectors,
    load_keyed,
    make_embedder,
)
from playscout.embed.device import with_device
from playscout.embed.embedder import load_for_documents
from playscout.embed.factory import parse_embedder
from playscout.embed.keyed import SPEC_FILE
from playscout.embed.release import (
    ReleaseCaptionVectors,
    ReleaseDocumentNodes,
    has_release_nodes,
    release_identity,
)
from playscout.search import BuildOptions, kind_for
from playscout.search.core.units import UNIT_STYLES, UnitStyle, doc_units
from playscout.search.embedded.build import AnnOptions, Progress, SportSource

__all__ = ["build_from_corpus", "parse_embedder"]


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
    ann: AnnOptions | None = None,
    backend: str = "auto",
    device: str | None = None,
    doc_vectors: Path | None = None,
    units: str | None = None,
    workers: int | None = None,
) -> Any:
    """Build an index of a corpus. `out` is a directory (embedded backend) or an
    Elasticsearch target `http(s)://host:port/prefix`, or another registered kind's target
    (`backend` forces a kind: playscout.search.kinds). `caption_vectors` is the output of
    `playscout index embed` (vectors looked up by clip id, queries by the model that made them).
    `video_vectors` is a directory of clip vectors; when it holds `embedder.json` (written by
    playscout.indexer.video.visual) the visual channel records that model (e.g. open_clip) and
    open_backend embeds default-mode clip queries with its text tower. `ann`: how the embedded
    index chooses and measures each vector channel's search setting. `device`: where the
    document and caption models run (settings.embed.device; None = each embedder's auto).

    The release's own vectors are read as they are: `doc_vectors` (`embeds/documents`, its
    sentence nodes and BGE-M3 vectors), `caption_vectors` (also `embeds/captions`),
    `video_vectors` (`embeds/videos`); the text models named by `doc_embedder` and
    `caption_embedder` then embed queries only. `units` is what is ranked and embedded
    otherwise (None: playscout's passages): playscout's passages or the reference's units (search/core/units.py). Each
    channel records what made its vectors (embed/release.py: the release layout, never a
    folder's name).
    `workers`: processes that read and handle clip records (None: one per core but one, unless
    an embedder computes on this CPU, whose cores it then keeps; 0 or 1: this process)."""
    kind = kind_for(out, backend)
    with contextlib.ExitStack() as stack:
        # The output's claim first (a directory's lock): a second build fails at once, before
        # loading models.
        claim = stack.enter_context(kind.claim(str(out), overwrite))
        corpus = Corpus(corpus_dir)
        chosen = list(sports or corpus.sports())
        if not chosen:
            raise CorpusError(f"{corpus_dir}: no sports found under data/")
        for sport in chosen:
            corpus.check_sport(sport)
        doc_spec = with_device(parse_embedder(doc_embedder), device)
        caption_spec = with_device(parse_embedder(caption_embedder), device)
        style = _unit_style(units, doc_vectors)
        loading = progress if doc_spec or caption_spec or caption_vectors else None
        if loading:  # importing and loading a model is seconds of a small build
            loading("load embedding models", 0, 1)
        identities: dict[str, dict[str, Any]] = {}
        captions: Embedder | None = (
            _caption_source(caption_vectors, caption_spec, corpus_dir, identities)
            if caption_vectors
            else make_embedder(caption_spec)
            if caption_spec
            else None
        )
        documents = make_embedder(doc_spec) if doc_spec else None
        release_docs = None
        if doc_vectors is not None:
            if documents is None:
                raise EmbeddingError(
                    "--doc-vectors needs the model that embeds queries into them: "
                    "--doc-embedder bge-m3:DIR or openai:URL#MODEL"
                )
            release_docs = ReleaseDocumentNodes(doc_vectors)
            identities["documents"] = release_identity(
                doc_vectors, corpus_dir, "documents", release_docs.dim
            )
        for embedder in (captions, documents):
            load_for_documents(embedder)  # in this stage, not inside the first embed batch
        if loading:
            loading("load embedding models", 1, 1)
        sources = (
            SportSource(
                s,
                corpus.iter_documents(s),
                corpus.iter_clips(s),
                corpus.document_count(s),
                corpus.clip_count(s),
                corpus.clip_shards(s),
            )
            for s in chosen
        )
        visual = _visual_source(video_vectors) if video_vectors else None
        if isinstance(visual, PrecomputedVectors) and video_vectors is not None:
            identities["visual"] = release_identity(video_vectors, corpus_dir, "videos", visual.dim)
        options = BuildOptions(
            doc_embedder=documents,
            caption_embedder=captions,
            visual_vectors=visual,
            progress=progress,
            overwrite=overwrite,
            ann=ann,
            index_options=index_options,
            claim=claim,
            units=doc_units(style, release_docs),
            identities=identities,
            workers=workers,
        )
        return kind.build(str(out), sources, options)


def _unit_style(units: str | None, doc_vectors: Path | None) -> UnitStyle:
    """`units`, else the release's own units when its document vectors are given, else
    playscout's passages."""
    if units is None:
        return "release" if doc_vectors is not None else "playscout"
    style = next((u for u in UNIT_STYLES if u == units), None)
    if style is None or (style == "release") != (doc_vectors is not None):
        raise EmbeddingError(
            f"units {units!r}: use playscout or reference (the release's own units come with "
            "--doc-vectors)"
        )
    return style


def _caption_source(
    directory: Path,
    query: dict[str, Any] | None,
    corpus_dir: Path,
    identities: dict[str, dict[str, Any]],
) -> KeyedEmbedder:
    """Caption vectors looked up by clip id: the release's `embeds/captions` pickles (queries
    by `query`, the model that made them) or vectors written by `playscout index embed`."""
    if not has_release_nodes(directory):
        return load_keyed(directory)
    if query is None:
        raise EmbeddingError(
            "the release's caption vectors need the model that embeds queries into them: "
            "--caption-embedder bge-m3:DIR or openai:URL#MODEL"
        )
    vectors = ReleaseCaptionVectors(directory)
    identities["caption"] = release_identity(directory, corpus_dir, "captions", vectors.dim)
    return KeyedEmbedder(vectors, make_embedder(query))


def _visual_source(directory: Path | str) -> PrecomputedVectors | KeyedEmbedder:
    """Video vectors; with an `embedder.json` beside them (playscout.indexer.video.visual),
    also the model that embeds queries (e.g. an open_clip text tower), whose spec the index
    records so queries are embedded by it. Without one: vectors only, and the text tower must
    be passed to open_backend."""
    if (Path(directory) / SPEC_FILE).is_file():
        return load_keyed(directory)
    return PrecomputedVectors(directory)
