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
    KeyedEmbedder,
    PrecomputedVectors,
    load_keyed,
    make_embedder,
)
from playscout.embed.device import with_device
from playscout.embed.embedder import load_for_documents
from playscout.embed.factory import parse_embedder
from playscout.embed.keyed import SPEC_FILE
from playscout.search import BuildOptions, kind_for
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
) -> Any:
    """Build an index of a corpus. `out` is a directory (embedded backend) or an
    Elasticsearch target `http(s)://host:port/prefix`, or another registered kind's target
    (`backend` forces a kind: playscout.search.kinds). `caption_vectors` is the output of
    `playscout index embed` (vectors looked up by clip id, queries by the model that made them).
    `video_vectors` is a directory of clip vectors; when it holds `embedder.json` (written by
    playscout.indexer.video.visual) the visual channel records that model (e.g. open_clip) and
    open_backend embeds default-mode clip queries with its text tower. `ann`: how the embedded
    index chooses and measures each vector channel's search setting. `device`: where the
    document and caption models run (settings.embed.device; None = each embedder's auto)."""
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
        loading = progress if doc_spec or caption_spec or caption_vectors else None
        if loading:  # importing and loading a model is seconds of a small build
            loading("load embedding models", 0, 1)
        captions: Embedder | None = (
            load_keyed(caption_vectors)
            if caption_vectors
            else make_embedder(caption_spec)
            if caption_spec
            else None
        )
        documents = make_embedder(doc_spec) if doc_spec else None
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
            )
            for s in chosen
        )
        options = BuildOptions(
            doc_embedder=documents,
            caption_embedder=captions,
            visual_vectors=_visual_source(video_vectors) if video_vectors else None,
            progress=progress,
            overwrite=overwrite,
            ann=ann,
            index_options=index_options,
            claim=claim,
        )
        return kind.build(str(out), sources, options)


def _visual_source(directory: Path | str) -> PrecomputedVectors | KeyedEmbedder:
    """Video vectors; with an `embedder.json` beside them (playscout.indexer.video.visual),
    also the model that embeds queries (e.g. an open_clip text tower), whose spec the index
    records so queries are embedded by it. Without one: vectors only, and the text tower must
    be passed to open_backend."""
    if (Path(directory) / SPEC_FILE).is_file():
        return load_keyed(directory)
    return PrecomputedVectors(directory)
