"""The engine-independent half of every search backend.

A backend (embedded, Elasticsearch) subclasses `BackendCore` (core/backend.py), which
implements the public `SearchBackend` methods once: argument checks and their error texts
(rules.py), the empty-query rule, clip mode selection, RRF fusion with explicit windows
(fusion.py), passage grouping and highlights (highlight.py). The backend supplies only engine
calls: BM25 and vector candidates, filter-only browsing, fetching records. What both index
builders share (their inputs, embedder specs, passage splitting, build error texts) lives here
too, so that neither backend imports the other.

Nothing is imported here, so that `import playscout.search.core.spec` stays cheap.
"""
