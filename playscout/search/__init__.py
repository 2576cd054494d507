"""Search: one backend interface (documents and clips; BM25, dense, hybrid with RRF), the
embedded default and Elasticsearch behind it as registered kinds (`kinds`), and
`open_backend` to open any of them.

Names are imported on first use, so the CLI reads the table of kinds (`kinds.KINDS`) at
start-up without loading a backend or an embedder."""

from __future__ import annotations

from typing import TYPE_CHECKING

from playscout._lazy import lazy_exports

if TYPE_CHECKING:
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
        KINDS,
        BackendKindError,
        get_kind,
        kind_for,
        kind_names,
        register_kind,
        unregister_kind,
    )
    from playscout.search.open import elastic_target, open_backend

_WHERE = {
    **dict.fromkeys(
        ("RRF_K", "ClipFilter", "ClipHit", "DocFilter", "DocHit", "IndexOpenError"),
        "backend_api",
    ),
    **dict.fromkeys(("SearchBackend", "SearchError", "rrf_fuse"), "backend_api"),
    "BackendKind": "kind",
    "BuildOptions": "kind",
    **dict.fromkeys(("KINDS", "BackendKindError", "get_kind", "kind_for", "kind_names"), "kinds"),
    "register_kind": "kinds",
    "unregister_kind": "kinds",
    "elastic_target": "open",
    "open_backend": "open",
}

__all__ = [
    "KINDS",
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

__getattr__ = lazy_exports(
    __name__, {name: f"{__name__}.{module}" for name, module in _WHERE.items()}, globals()
)
