"""The default, server-less search backend: tantivy BM25 + memory-mapped float32 vectors (exact
BLAS search, faiss IVF-SQ8 for large unfiltered collections) + numpy filter columns."""

from playscout.search.embedded.backend import EMBEDDER_KEYS, EmbeddedBackend, open_index

__all__ = ["EMBEDDER_KEYS", "EmbeddedBackend", "open_index"]
