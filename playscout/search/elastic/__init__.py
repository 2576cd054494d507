"""Elasticsearch 8/9 scale-out backend: explicit mappings, versioned indices behind aliases,
bulk ingest, BM25 + filtered kNN fused client-side with RRF (k=60)."""

from playscout.search.elastic.backend import ElasticsearchBackend, open_elasticsearch
from playscout.search.elastic.build import (
    ElasticBuildSummary,
    build_elasticsearch,
    orphan_indices,
)
from playscout.search.elastic.client import make_client

__all__ = [
    "ElasticBuildSummary",
    "ElasticsearchBackend",
    "build_elasticsearch",
    "make_client",
    "open_elasticsearch",
    "orphan_indices",
]
