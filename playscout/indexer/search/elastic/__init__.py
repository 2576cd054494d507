"""Elasticsearch 8/9 scale-out backend: explicit mappings, versioned indices behind aliases,
bulk ingest, BM25 + filtered kNN fused client-side with RRF (k=60)."""

from playscout.indexer.search.elastic.backend import ElasticsearchBackend, open_elasticsearch
from playscout.indexer.search.elastic.build import (
    ElasticBuildSummary,
    build_elasticsearch,
    orphan_indices,
)
from playscout.indexer.search.elastic.client import make_client

__all__ = [
    "ElasticBuildSummary",
    "ElasticsearchBackend",
    "build_elasticsearch",
    "make_client",
    "open_elasticsearch",
    "orphan_indices",
]
