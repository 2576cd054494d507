"""Indexing: a corpus into search indices (`build_from_corpus`), raw broadcast video into
corpus clips (`playscout.indexer.video`), and Ray fan-out of embedding (`indexer.distributed`)."""

from playscout.indexer.build import build_from_corpus, parse_embedder

__all__ = ["build_from_corpus", "parse_embedder"]
