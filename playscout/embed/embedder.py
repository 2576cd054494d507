"""Shared types of the embedders.

The spec is stored in the index manifest so that queries are embedded by the same model that
embedded the corpus; a mismatch must be an error, never a silent fallback (T9 weak points 15, 17).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
from pydantic import BaseModel, Field

from playscout.embed.errors import EmbeddingError

EmbedderKind = str
"""A name in the table of embedders, `playscout.embed.factory.EMBEDDERS`."""

# Spec options that change how an embedder runs, not which vectors it gives: ignore them when
# checking that a query embedder matches the one an index was built with. ("pretrained" is where
# open_clip weights lie; their identity is the recorded "weights_sha256". Precision follows the
# device: fp16 and fp32 vectors agree at cosine >= 0.999, embed/device.py.)
RUNTIME_OPTIONS = frozenset(
    {"batch_size", "device", "base_url", "api_key_env", "timeout_s", "max_retries"}
    | {"backoff_base_s", "backoff_max_s", "pretrained", "use_fp16", "cpu_precision"}
)


class EmbedderSpec(BaseModel):
    """What produced a set of vectors; recorded in the index manifest. Holds no secrets."""

    kind: EmbedderKind
    model: str  # package name / local path / served model name
    dim: int = Field(gt=0)
    options: dict[str, Any] = Field(default_factory=dict)


@runtime_checkable
class Embedder(Protocol):
    """Text embedder: float32 (n, dim) arrays with L2-normalised rows."""

    @property
    def dim(self) -> int: ...

    def spec(self) -> EmbedderSpec: ...

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray: ...


@runtime_checkable
class ImageEmbedder(Protocol):
    """Image tower of a joint image/text model: HxWx3 uint8 RGB frames -> unit float32 rows."""

    @property
    def dim(self) -> int: ...

    def spec(self) -> EmbedderSpec: ...

    def embed_images(self, frames: Sequence[np.ndarray]) -> np.ndarray: ...


def made_on(source: object) -> dict[str, str] | None:
    """The device and dtype that made an embedder's vectors (`placement` of the local-model
    embedders, `made_on` of stored vectors), for the index manifest; None when not known."""
    placement = getattr(source, "placement", None)
    if placement is not None and hasattr(placement, "record"):
        return dict(placement.record())
    recorded = getattr(source, "made_on", None)
    return dict(recorded) if isinstance(recorded, dict) else None


def load_for_documents(embedder: object) -> None:
    """Load what embedding documents needs now rather than at the first batch (an index
    build's "load embedding models" stage then measures the load; queries may stay light)."""
    load = getattr(embedder, "load_for_documents", None)
    if load is not None:
        load()


def check_texts(texts: Sequence[str], where: str) -> list[str]:
    """Reject a bare string (it would be embedded character by character) and non-strings."""
    if isinstance(texts, str):
        raise EmbeddingError(
            f"{where}: expected a sequence of strings, got one str; wrap it in a list"
        )
    out = list(texts)
    for i, t in enumerate(out):
        if not isinstance(t, str):
            raise EmbeddingError(f"{where}: item {i} is {type(t).__name__}, not str")
    return out


def normalize_rows(vectors: Any, dim: int, where: str) -> np.ndarray:
    """Return float32 (n, dim) with unit rows; raise on a wrong shape, NaN/inf or a zero row."""
    arr = np.asarray(vectors, dtype=np.float32)
    if arr.ndim != 2 or arr.shape[1] != dim:
        raise EmbeddingError(f"{where}: expected shape (n, {dim}), got {arr.shape}")
    if arr.shape[0] == 0:
        return arr.reshape(0, dim)
    if not np.isfinite(arr).all():
        bad = int(np.flatnonzero(~np.isfinite(arr).all(axis=1))[0])
        raise EmbeddingError(f"{where}: row {bad} has NaN or inf values")
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    if (norms == 0).any():
        bad = int(np.flatnonzero(norms[:, 0] == 0)[0])
        raise EmbeddingError(f"{where}: row {bad} is an all-zero vector and cannot be normalised")
    return np.ascontiguousarray(arr / norms, dtype=np.float32)


def check_dim(expected: int | None, actual: int, where: str) -> int:
    """The dimension the spec asked for must be the one the model gives."""
    if expected is not None and expected != actual:
        raise EmbeddingError(
            f"{where}: dimension mismatch: spec says {expected}, model gives {actual}; "
            "re-index with this model or configure the model the index was built with"
        )
    return actual
