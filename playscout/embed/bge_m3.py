"""BGE-M3 dense embedder through FlagEmbedding, from a local weights directory only.

The T9 corpus documents and captions were embedded with BAAI/bge-m3 (1024-d), so queries against
those vectors need this model. FlagEmbedding (the `bge` extra) is heavy and optional; it is
imported only when an embedder is built. Hub ids are refused: weights must be downloaded first.
"""

from __future__ import annotations

import json
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

_cache_lock = threading.Lock()
_models: dict[tuple[str, str, bool], tuple[Any, threading.Lock]] = {}


def read_model_dim(path: Path) -> int:
    """The dense vector is the CLS hidden state, so its size is the config's hidden_size."""
    try:
        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
        return int(config["hidden_size"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise EmbeddingError(
            f"BGE-M3: cannot read hidden_size from {path / 'config.json'}: {e}"
        ) from e


def resolve_local_dir(model: str) -> Path:
    path = Path(model).expanduser()
    if not (path.is_dir() and (path / "config.json").is_file()):
        raise EmbeddingError(
            f"BGE-M3 model {model!r} is not a local model directory (no config.json); download the "
            "weights first (e.g. `huggingface-cli download BAAI/bge-m3 --local-dir DIR`) and pass DIR"
        )
    return path.resolve()


def _load(path: Path, device: str, use_fp16: bool) -> tuple[Any, threading.Lock]:
    key = (str(path), device, use_fp16)
    with _cache_lock:
        if key not in _models:
            from playscout.embed._torch_shim import apply_torchvision_shim

            apply_torchvision_shim()
            try:
                from FlagEmbedding import BGEM3FlagModel
            except ImportError as e:
                raise EmbeddingError(
                    f"FlagEmbedding is not installed ({e}): {install_hint('bge')} "
                    "(with -c constraints.txt to keep CPU torch)"
                ) from e
            model = BGEM3FlagModel(str(path), use_fp16=use_fp16, devices=device)
            _models[key] = (model, threading.Lock())
        return _models[key]


class BGEM3Embedder:
    """Dense BGE-M3 vectors (sparse and ColBERT outputs are not used)."""

    def __init__(
        self,
        model: str,
        *,
        batch_size: int | None = None,
        max_length: int = 512,
        device: str = "auto",
        use_fp16: bool | None = None,
        dim: int | None = None,
    ) -> None:
        if (batch_size is not None and batch_size < 1) or max_length < 1:
            raise EmbeddingError("BGE-M3: batch_size and max_length must be >= 1")
        self.model_name = model
        self.placement = resolve_placement(device)
        self.batch_size = batch_size or default_batch("bge-m3", self.placement)
        self.max_length = max_length
        self.device = self.placement.device
        # fp16 on a GPU, fp32 on the CPU unless asked otherwise (use_fp16 in an old spec)
        self.use_fp16 = self.placement.is_cuda if use_fp16 is None else use_fp16
        self.placement = Placement(self.device, "float16" if self.use_fp16 else "float32")
        self.path = resolve_local_dir(model)
        self.dim = check_dim(dim, read_model_dim(self.path), f"BGE-M3 {model}")
        self._model, self._lock = _load(self.path, self.device, self.use_fp16)

    def spec(self) -> EmbedderSpec:
        return EmbedderSpec(
            kind="bge-m3",
            model=self.model_name,
            dim=self.dim,
            options={
                "batch_size": self.batch_size,
                "max_length": self.max_length,
            },  # no device or precision: vectors made on a GPU box are queried on CPU ones
        )

    def _encode(self, texts: Sequence[str], queries: bool) -> np.ndarray:
        where = "BGE-M3 embed_queries" if queries else "BGE-M3 embed_documents"
        items = check_texts(texts, where)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        fn = self._model.encode_queries if queries else self._model.encode_corpus
        with self._lock:
            out = fn(
                items,
                batch_size=self.batch_size,
                max_length=self.max_length,
                return_dense=True,
                return_sparse=False,
                return_colbert_vecs=False,
            )
        dense = out["dense_vecs"] if isinstance(out, dict) else out
        return normalize_rows(np.atleast_2d(np.asarray(dense, dtype=np.float32)), self.dim, where)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, queries=False)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, queries=True)
