"""Text and clip embedders behind one small interface; see base.EmbedderSpec.

Importing this package is cheap: torch, sentence-transformers, FlagEmbedding and open_clip are
imported only when a local-model embedder is built.
"""

from playscout.embed.bge_m3 import BGEM3Embedder
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
from playscout.embed.open_clip import TINY_MODEL, OpenClipEmbedder, make_tiny_weights
from playscout.embed.openai_compat import OpenAIEmbedder
from playscout.embed.precomputed import PrecomputedVectors, write_consolidated

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
