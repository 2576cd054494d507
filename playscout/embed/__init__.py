"""Text and clip embedders behind one small interface; see base.EmbedderSpec.

Importing this package is cheap: torch, sentence-transformers, FlagEmbedding and open_clip are
imported only when a local-model embedder is built, and queries to MiniLM never import them
(embed/bert_numpy.py). The embedders a search does not use (BGE-M3, open_clip, the
OpenAI-compatible client with its httpx) are imported on first use of their names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from playscout._lazy import lazy_exports
from playscout.embed.embedder import (
    RUNTIME_OPTIONS,
    Embedder,
    EmbedderKind,
    EmbedderSpec,
    EmbeddingError,
    ImageEmbedder,
)
from playscout.embed.factory import make_embedder
from playscout.embed.keyed import KeyedEmbedder, load_keyed
from playscout.embed.minilm import MINILM_DIM, MiniLMEmbedder
from playscout.embed.precomputed import PrecomputedVectors, write_consolidated

if TYPE_CHECKING:
    from playscout.embed.bge_m3 import BGEM3Embedder
    from playscout.embed.open_clip import TINY_MODEL, OpenClipEmbedder, make_tiny_weights
    from playscout.embed.openai_compat import OpenAIEmbedder

_LAZY = {
    "BGEM3Embedder": "playscout.embed.bge_m3",
    "TINY_MODEL": "playscout.embed.open_clip",
    "OpenClipEmbedder": "playscout.embed.open_clip",
    "make_tiny_weights": "playscout.embed.open_clip",
    "OpenAIEmbedder": "playscout.embed.openai_compat",
}

__all__ = [
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


__getattr__ = lazy_exports(__name__, _LAZY, globals())
