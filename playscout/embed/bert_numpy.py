"""A BERT sentence encoder in numpy, for embedding queries without torch.

A CLI search embeds one short query; importing sentence-transformers and torch for it cost
~7 CPU-seconds, the search itself milliseconds (issue 29). This module runs the same forward
pass as sentence-transformers over the same files of a local sentence-transformers directory:
the `tokenizers` (Rust) tokenizer from `tokenizer.json`, the safetensors weights memory-mapped
(`read_safetensors`), `max_seq_length` from `sentence_bert_config.json`, the pooling of
`1_Pooling/config.json` and the `Normalize` module of `modules.json`. Only what it reproduces
is accepted (`unsupported` says why not), so a model it cannot run keeps the full encoder;
tests/embed/test_bert_numpy.py holds its vectors to cosine >= 0.9999 against
sentence-transformers. Float32 throughout, as the CPU torch path.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from playscout.embed.blas import one_blas_thread
from playscout.embed.embedder import EmbeddingError
from playscout.errors import install_hint

_TRANSFORMER = "sentence_transformers.models.Transformer"
_POOLING = "sentence_transformers.models.Pooling"
_NORMALIZE = "sentence_transformers.models.Normalize"
_POOL_MODES = {"pooling_mode_mean_tokens": "mean", "pooling_mode_cls_token": "cls"}
_BATCH = 32  # queries per forward pass; sorted by length so padding stays small
# One BLAS thread per forward pass: a query's matrices are small, and waking OpenBLAS's threads
# for each of its ~100 products cost 35x the CPU time of one thread (0.29 vs 0.008 CPU-s for a
# 3-word query on 2 loaded cores). The limit is process-wide, so passes run one at a time.
_blas_lock = threading.Lock()


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise EmbeddingError(f"{path}: cannot read: {e}") from e


@dataclass(frozen=True)
class BertLayout:
    """What sentence-transformers would run for a model directory."""

    config: dict[str, Any]
    max_seq_length: int
    pooling: str  # "mean" | "cls"
    normalize: bool
    dim: int


def read_layout(path: Path) -> BertLayout | str:
    """The layout of a sentence-transformers directory, or why this encoder cannot run it."""
    modules_file = path / "modules.json"
    if not modules_file.is_file():
        return "no modules.json"
    modules = _read_json(modules_file)
    types = [m.get("type", "") for m in modules]
    if types not in ([_TRANSFORMER, _POOLING], [_TRANSFORMER, _POOLING, _NORMALIZE]):
        return f"modules {types} are not Transformer, Pooling[, Normalize]"
    if modules[0].get("path", "") != "":
        return "the Transformer module is not at the directory root"
    for name in ("config.json", "tokenizer.json", "model.safetensors", "sentence_bert_config.json"):
        if not (path / name).is_file():
            return f"no {name}"
    config = _read_json(path / "config.json")
    if config.get("model_type") != "bert" or config.get("hidden_act") != "gelu":
        return f"model_type {config.get('model_type')!r} / {config.get('hidden_act')!r} is not bert/gelu"
    if config.get("position_embedding_type", "absolute") != "absolute":
        return "position embeddings are not absolute"
    st_config = _read_json(path / "sentence_bert_config.json")
    if st_config.get("do_lower_case"):
        return "do_lower_case is set in sentence_bert_config.json"
    pool_cfg = _read_json(path / modules[1]["path"] / "config.json")
    chosen = [mode for key, mode in _POOL_MODES.items() if pool_cfg.get(key)]
    others = [
        k
        for k, v in pool_cfg.items()
        if k.startswith("pooling_mode") and v and k not in _POOL_MODES
    ]
    if len(chosen) != 1 or others:
        return f"pooling {pool_cfg} is not exactly one of mean, cls"
    hidden = int(config["hidden_size"])
    if int(pool_cfg.get("word_embedding_dimension", hidden)) != hidden:
        return "pooling dimension differs from hidden_size"
    max_len = min(
        int(st_config.get("max_seq_length") or config["max_position_embeddings"]),
        int(config["max_position_embeddings"]),
    )
    return BertLayout(config, max_len, chosen[0], len(modules) == 3, hidden)


def _erf(x: np.ndarray) -> np.ndarray:
    """erf to |error| <= 1.5e-7 (Abramowitz & Stegun 7.1.26): exact GELU without scipy."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    return (sign * (1.0 - poly * np.exp(-a * a))).astype(np.float32)


def _gelu(x: np.ndarray) -> np.ndarray:
    return (0.5 * x * (1.0 + _erf(x * np.float32(0.7071067811865476)))).astype(np.float32)


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: np.float32) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    return (centred / np.sqrt(var + eps) * weight + bias).astype(np.float32)


_DTYPES = {"F32": "<f4", "F16": "<f2", "I64": "<i8"}


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """The tensors of a .safetensors file as read-only views of one memory map: nothing is
    copied, and only the embedding rows a query uses are read (0.007 vs 0.06 CPU-s for the
    bundled MiniLM with `safetensors.numpy.load_file`). The format is an 8-byte little-endian
    header length, a JSON header (name -> dtype, shape, data_offsets), then the data."""
    try:
        with path.open("rb") as fh:
            size = int.from_bytes(fh.read(8), "little")
            header = json.loads(fh.read(size))
        data = np.memmap(path, dtype=np.uint8, mode="r")
    except (OSError, ValueError) as e:
        raise EmbeddingError(f"{path}: not a readable safetensors file: {e}") from e
    start = 8 + size
    tensors: dict[str, np.ndarray] = {}
    for name, info in header.items():
        if name == "__metadata__" or info.get("dtype") not in _DTYPES:
            continue
        begin, end = (start + int(o) for o in info["data_offsets"])
        if not start <= begin <= end <= data.shape[0]:
            raise EmbeddingError(f"{path}: tensor {name} lies outside the file (truncated?)")
        view = data[begin:end].view(_DTYPES[info["dtype"]])
        tensors[name] = view.reshape([int(d) for d in info["shape"]])
    return tensors


class NumpyBert:
    """A BERT sentence-transformers model as numpy arrays; `encode` gives its sentence vectors
    (normalised when modules.json has Normalize)."""

    def __init__(self, path: Path, layout: BertLayout) -> None:
        try:
            from tokenizers import Tokenizer
        except ImportError as e:
            raise EmbeddingError(f"tokenizers is not installed: {install_hint('embed')}") from e

        self.layout = layout
        cfg = layout.config
        self.heads = int(cfg["num_attention_heads"])
        self.eps = np.float32(cfg.get("layer_norm_eps", 1e-12))
        self.tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=layout.max_seq_length)
        self.tokenizer.no_padding()
        raw = read_safetensors(path / "model.safetensors")
        prefix = "bert." if "bert.embeddings.word_embeddings.weight" in raw else ""

        def get(name: str) -> np.ndarray:
            if prefix + name not in raw:
                raise EmbeddingError(f"{path}/model.safetensors: no float tensor {prefix + name}")
            return raw[prefix + name].astype(np.float32, copy=False)

        def dense(name: str) -> tuple[np.ndarray, np.ndarray]:
            """(in, out) weight as a transposed view: BLAS reads it in place, no copy."""
            return get(name + ".weight").T, get(name + ".bias")

        def norm(name: str) -> tuple[np.ndarray, np.ndarray]:
            return get(name + ".weight"), get(name + ".bias")

        self.word = get("embeddings.word_embeddings.weight")
        self.position = get("embeddings.position_embeddings.weight")
        self.token_type = get("embeddings.token_type_embeddings.weight")[0]
        self.embed_norm = norm("embeddings.LayerNorm")
        self.blocks = []
        for i in range(int(cfg["num_hidden_layers"])):
            p = f"encoder.layer.{i}."
            self.blocks.append(
                _Block(
                    q=dense(p + "attention.self.query"),
                    k=dense(p + "attention.self.key"),
                    v=dense(p + "attention.self.value"),
                    out=dense(p + "attention.output.dense"),
                    out_norm=norm(p + "attention.output.LayerNorm"),
                    up=dense(p + "intermediate.dense"),
                    down=dense(p + "output.dense"),
                    down_norm=norm(p + "output.LayerNorm"),
                )
            )

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        n, length = ids.shape
        hidden = self.layout.dim
        heads, head = self.heads, hidden // self.heads
        x = self.word[ids] + self.position[:length][None] + self.token_type
        x = _layer_norm(x.reshape(n * length, hidden), *self.embed_norm, self.eps)
        scale = np.float32(1.0 / np.sqrt(head))
        pad = np.where(mask[:, None, None, :] > 0, 0.0, np.finfo(np.float32).min)
        pad = pad.astype(np.float32)
        for b in self.blocks:
            q, k, v = (
                (x @ w + bias).reshape(n, length, heads, head).transpose(0, 2, 1, 3)
                for w, bias in (b.q, b.k, b.v)
            )
            scores = np.einsum("nhld,nhmd->nhlm", q, k) * scale + pad
            scores -= scores.max(axis=-1, keepdims=True)
            probs = np.exp(scores)
            probs /= probs.sum(axis=-1, keepdims=True)
            ctx = np.einsum("nhlm,nhmd->nlhd", probs, v).reshape(n * length, hidden)
            x = _layer_norm(ctx @ b.out[0] + b.out[1] + x, *b.out_norm, self.eps)
            inter = _gelu(x @ b.up[0] + b.up[1])
            x = _layer_norm(inter @ b.down[0] + b.down[1] + x, *b.down_norm, self.eps)
        tokens = x.reshape(n, length, hidden)
        if self.layout.pooling == "cls":
            pooled = tokens[:, 0]
        else:
            m = mask[..., None].astype(np.float32)
            pooled = (tokens * m).sum(axis=1) / np.maximum(m.sum(axis=1), np.float32(1e-9))
        if self.layout.normalize:
            pooled = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return pooled.astype(np.float32)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dim) float32; batches sorted by length so padding stays small."""
        items = list(texts)
        out = np.zeros((len(items), self.layout.dim), dtype=np.float32)
        if not items:
            return out
        with _blas_lock, one_blas_thread():
            return self._encode(items, out)

    def _encode(self, items: list[str], out: np.ndarray) -> np.ndarray:
        encodings = self.tokenizer.encode_batch(items)
        order = sorted(range(len(items)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), _BATCH):
            rows = order[start : start + _BATCH]
            longest = max(len(encodings[i].ids) for i in rows)
            ids = np.zeros((len(rows), longest), dtype=np.int64)
            mask = np.zeros((len(rows), longest), dtype=np.int64)
            for r, i in enumerate(rows):
                row = encodings[i].ids
                ids[r, : len(row)] = row
                mask[r, : len(row)] = 1
            out[rows] = self._forward(ids, mask)
        return out


@dataclass(frozen=True)
class _Block:
    """One encoder layer: (weight, bias) pairs, dense weights stored as (in, out)."""

    q: tuple[np.ndarray, np.ndarray]
    k: tuple[np.ndarray, np.ndarray]
    v: tuple[np.ndarray, np.ndarray]
    out: tuple[np.ndarray, np.ndarray]
    out_norm: tuple[np.ndarray, np.ndarray]
    up: tuple[np.ndarray, np.ndarray]
    down: tuple[np.ndarray, np.ndarray]
    down_norm: tuple[np.ndarray, np.ndarray]
