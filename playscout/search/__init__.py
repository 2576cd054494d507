"""Search: one backend interface (documents and clips; BM25, dense, hybrid with RRF), the
embedded default and Elasticsearch behind it, and `open_backend` to open either."""

from playscout.search.backend_api import (
    RRF_K,
    ClipFilter,
    ClipHit,
    DocFilter,
    DocHit,
    IndexOpenError,
    SearchBackend,
    SearchError,
    rrf_fuse,
)
from playscout.search.open import elastic_target, open_backend

__all__ = [
    "RRF_K",
    "ClipFilter",
    "ClipHit",
    "DocFilter",
    "DocHit",
    "IndexOpenError",
    "SearchBackend",
    "SearchError",
    "elastic_target",
    "open_backend",
    "rrf_fuse",
]
