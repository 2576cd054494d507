"""Search: one backend interface (documents and clips; BM25, dense, hybrid with RRF), the
embedded default and Elasticsearch behind it as registered kinds (`kinds`), and
`open_backend` to open any of them."""

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
from playscout.search.kind import BackendKind, BuildOptions
from playscout.search.kinds import (
    BackendKindError,
    get_kind,
    kind_for,
    kind_names,
    register_kind,
    unregister_kind,
)
from playscout.search.open import elastic_target, open_backend

__all__ = [
    "RRF_K",
    "BackendKind",
    "BackendKindError",
    "BuildOptions",
    "ClipFilter",
    "ClipHit",
    "DocFilter",
    "DocHit",
    "IndexOpenError",
    "SearchBackend",
    "SearchError",
    "elastic_target",
    "get_kind",
    "kind_for",
    "kind_names",
    "open_backend",
    "register_kind",
    "rrf_fuse",
    "unregister_kind",
]
