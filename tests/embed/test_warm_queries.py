"""Queries embedded where the vectors are searched (issue 36): a long-lived process (serve,
eval) opens its index `warm`, and MiniLM then embeds queries with the loaded model on the GPU
where its documents run there; on the CPU the numpy encoder stays, and nothing imports torch
for it."""

from __future__ import annotations

import numpy as np
import pytest

from playscout.embed import MiniLMEmbedder
from playscout.embed import minilm as minilm_module
from playscout.embed.device import resolve_device
from playscout.search import open_backend

QUERIES = ["three pointer from the corner", "a save by the goalkeeper", "power play goal"]


def test_without_a_gpu_warm_keeps_the_numpy_encoder_and_asks_nothing_of_torch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(minilm_module, "gpu_visible", lambda: False)
    emb = MiniLMEmbedder(device="auto")
    assert emb.warm_for_queries() is False
    assert emb._placement is None  # the device was never resolved: no torch import for it
    assert emb.queries_on_device is False


def test_device_cpu_is_never_moved(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(minilm_module, "gpu_visible", lambda: True)
    emb = MiniLMEmbedder(device="cpu")
    assert emb.warm_for_queries() is False and emb.queries_on_device is False


def test_a_warm_open_asks_every_query_embedder_and_answers_the_same(
    synth_index: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """open_backend(warm=True) offers each channel's embedder the move; here (no GPU) each
    declines and the answers are the cold open's."""
    asked: list[str] = []
    real = MiniLMEmbedder.warm_for_queries

    def recorded(self: MiniLMEmbedder) -> bool:
        asked.append(self.model_name)
        return real(self)

    monkeypatch.setattr(MiniLMEmbedder, "warm_for_queries", recorded)
    monkeypatch.setattr(minilm_module, "gpu_visible", lambda: False)
    index = synth_index.index_dir  # type: ignore[attr-defined]
    cold, warm = open_backend(index), open_backend(index, warm=True)
    assert len(asked) == 2  # the documents' and the captions' embedders
    for q in QUERIES:
        a = cold.search_clips("basketball", q, channel="caption", mode="dense", top_k=20)
        b = warm.search_clips("basketball", q, channel="caption", mode="dense", top_k=20)
        assert [h.clip_id for h in a] == [h.clip_id for h in b]


@pytest.mark.gpu
@pytest.mark.skipif(resolve_device("auto") == "cpu", reason="needs a CUDA GPU")
def test_on_a_gpu_warm_queries_run_on_the_card_and_match_the_numpy_encoder() -> None:
    emb = MiniLMEmbedder(device="auto")
    numpy_vectors = emb.embed_queries(QUERIES)
    assert emb.warm_for_queries() is True and emb.queries_on_device
    card_vectors = emb.embed_queries(QUERIES)
    assert np.min(np.sum(numpy_vectors * card_vectors, axis=1)) >= 0.999
