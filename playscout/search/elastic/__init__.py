"""Elasticsearch 8/9 scale-out backend: explicit mappings, versioned indices behind aliases,
bulk ingest, BM25 + filtered kNN fused client-side with RRF (k=60)."""

from playscout.errors import install_hint
from playscout.search.backend_api import IndexOpenError

try:  # the client comes with the `elastic` extra: without it, one line naming the extra
    import elasticsearch  # noqa: F401
except ModuleNotFoundError as e:
    if e.name != "elasticsearch":
        raise
    raise IndexOpenError(
        f"an Elasticsearch index needs the elasticsearch client: {install_hint('elastic')}"
    ) from None

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
