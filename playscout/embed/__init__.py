"""Text and clip embedders behind one small interface; see embedder.EmbedderSpec.

Importing this package is cheap: every name is imported on first use, so the CLI reads the
table of embedders (`factory.EMBEDDERS`) without numpy; torch, sentence-transformers,
FlagEmbedding and open_clip are imported only when a local-model embedder is built, and queries
to MiniLM never import them (embed/bert_numpy.py). The embedders a search does not use
(BGE-M3, open_clip, the OpenAI-compatible client with its httpx) are never imported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from playscout._lazy import lazy_exports

if TYPE_CHECKING:
    from playscout.embed.bge_m3 import BGEM3Embedder
    from playscout.embed.embedder import (
        RUNTIME_OPTIONS,
        Embedder,
        EmbedderKind,
        EmbedderSpec,
        ImageEmbedder,
    )
    from playscout.embed.errors import EmbeddingError
    from playscout.embed.factory import EMBEDDERS, make_embedder
    from playscout.embed.keyed import KeyedEmbedder, load_keyed
    from playscout.embed.minilm import MINILM_DIM, MiniLMEmbedder
    from playscout.embed.open_clip import TINY_MODEL, OpenClipEmbedder, make_tiny_weights
    from playscout.embed.openai_compat import OpenAIEmbedder
    from playscout.embed.precomputed import PrecomputedVectors, write_consolidated

_WHERE = {
    "BGEM3Embedder": "bge_m3",
    **dict.fromkeys(
        ("RUNTIME_OPTIONS", "Embedder", "EmbedderKind", "EmbedderSpec", "ImageEmbedder"),
        "embedder",
    ),
    "EmbeddingError": "errors",
    "EMBEDDERS": "factory",
    "make_embedder": "factory",
    "KeyedEmbedder": "keyed",
    "load_keyed": "keyed",
    "MINILM_DIM": "minilm",
    "MiniLMEmbedder": "minilm",
    "TINY_MODEL": "open_clip",
    "OpenClipEmbedder": "open_clip",
    "make_tiny_weights": "open_clip",
    "OpenAIEmbedder": "openai_compat",
    "PrecomputedVectors": "precomputed",
    "write_consolidated": "precomputed",
}

__all__ = [
    "EMBEDDERS",
    "MINILM_DIM",
    "RUNTIME_OPTIONS",
    "TINY_MODEL",
    "BGEM3Embedder",
    "Embedder",
    "EmbedderKind",
    "EmbedderSpec",
    "EmbeddingError",
    "ImageEmbedder",
    "KeyedEmbedder",
    "MiniLMEmbedder",
    "OpenAIEmbedder",
    "OpenClipEmbedder",
    "PrecomputedVectors",
    "load_keyed",
    "make_embedder",
    "make_tiny_weights",
    "write_consolidated",
]

__getattr__ = lazy_exports(
    __name__, {name: f"{__name__}.{module}" for name, module in _WHERE.items()}, globals()
)
