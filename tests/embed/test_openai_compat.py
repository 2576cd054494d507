"""OpenAIEmbedder against FakeEmbeddingServer, a real HTTP server on 127.0.0.1 (stands in for vLLM)."""

from __future__ import annotations

import socket
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from playscout.embed import EmbeddingError, OpenAIEmbedder, make_embedder
from tests.embed.fake_server import FakeEmbeddingServer, fake_vector


def _unit(texts: list[str], dim: int = 16) -> np.ndarray:
    m = np.stack([fake_vector(t, dim) for t in texts])
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def _embedder(server: FakeEmbeddingServer, **kw: object) -> tuple[OpenAIEmbedder, list[float]]:
    sleeps: list[float] = []
    opts: dict = {"dim": 16, "max_retries": 3, "backoff_base_s": 0.1, "backoff_max_s": 1.0}
    opts.update(kw)
    return OpenAIEmbedder(
        "fake-embed", base_url=server.base_url, sleep=sleeps.append, **opts
    ), sleeps


def test_batches_and_normalises(server: FakeEmbeddingServer) -> None:
    emb, _ = _embedder(server, batch_size=2)
    texts = [f"text {i}" for i in range(5)]
    out = emb.embed_documents(texts)
    assert out.shape == (5, 16) and out.dtype == np.float32
    np.testing.assert_allclose(out, _unit(texts), atol=1e-6)
    assert [len(r["body"]["input"]) for r in server.requests] == [2, 2, 1]
    assert server.requests[0]["body"]["model"] == "fake-embed"
    assert server.requests[0]["body"]["encoding_format"] == "float"


def test_dim_is_discovered_with_one_probe(server: FakeEmbeddingServer) -> None:
    emb = make_embedder(
        {"kind": "openai", "model": "fake-embed", "options": {"base_url": server.base_url}}
    )
    assert emb.dim == 16 and server.embedding_calls == 1
    assert emb.spec().dim == 16


def test_out_of_order_indices_are_reordered(server: FakeEmbeddingServer) -> None:
    server.behaviour.reverse_order = True
    emb, _ = _embedder(server)
    texts = ["first", "second", "third", "fourth"]
    np.testing.assert_allclose(emb.embed_queries(texts), _unit(texts), atol=1e-6)


def test_503_is_retried_with_growing_backoff(server: FakeEmbeddingServer) -> None:
    server.behaviour.fail_times = 2
    emb, sleeps = _embedder(server)
    out = emb.embed_documents(["a goal"])
    np.testing.assert_allclose(out, _unit(["a goal"]), atol=1e-6)
    assert server.embedding_calls == 3
    assert len(sleeps) == 2
    assert 0.05 <= sleeps[0] <= 0.1 and 0.1 <= sleeps[1] <= 0.2  # base·2^k with equal jitter


def test_retries_are_bounded(server: FakeEmbeddingServer) -> None:
    server.behaviour.fail_times = 100
    emb, sleeps = _embedder(server, max_retries=2)
    with pytest.raises(EmbeddingError) as info:
        emb.embed_documents(["a goal"])
    msg = str(info.value)
    assert msg == (
        f"embedding request to {server.base_url}/embeddings failed after 3 attempts: "
        "HTTP 503: overloaded"
    )
    assert server.embedding_calls == 3 and len(sleeps) == 2


def test_429_retry_after_is_honoured_up_to_the_cap(server: FakeEmbeddingServer) -> None:
    server.behaviour.fail_times = 2
    server.behaviour.fail_status = 429
    server.behaviour.retry_after = "0.7"
    emb, sleeps = _embedder(server)
    emb.embed_documents(["x"])
    assert sleeps == [0.7, 0.7] and server.embedding_calls == 3
    server.behaviour.fail_times, server.behaviour.retry_after = 1, "30"
    emb.embed_documents(["x"])
    assert sleeps[-1] == 1.0  # backoff_max_s


def test_400_is_not_retried(server: FakeEmbeddingServer) -> None:
    server.behaviour.status = 400
    emb, sleeps = _embedder(server)
    with pytest.raises(EmbeddingError) as info:
        emb.embed_documents(["x"])
    assert str(info.value) == (
        f"embedding request to {server.base_url}/embeddings failed: HTTP 400: input is too long"
    )
    assert server.embedding_calls == 1 and sleeps == []


def test_wrong_path_404_is_not_retried(server: FakeEmbeddingServer) -> None:
    emb, sleeps = _embedder(server)
    emb.url = server.base_url.removesuffix("/v1") + "/embeddings"
    with pytest.raises(EmbeddingError, match=r"/embeddings failed: HTTP 404: no route /embeddings"):
        emb.embed_documents(["x"])
    assert server.embedding_calls == 1 and sleeps == []


def test_timeout_is_retried_then_reported(server: FakeEmbeddingServer) -> None:
    server.behaviour.delay_s = 0.6
    emb, sleeps = _embedder(server, timeout_s=0.15, max_retries=1)
    with pytest.raises(EmbeddingError) as info:
        emb.embed_documents(["x"])
    assert str(info.value) == (
        f"embedding request to {server.base_url}/embeddings failed after 2 attempts: "
        "timed out after 0.15s (ReadTimeout)"
    )
    assert server.embedding_calls == 2 and len(sleeps) == 1


def test_connection_refused_is_retried_then_reported() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again when the block ends: nothing listens
    sleeps: list[float] = []
    emb = OpenAIEmbedder(
        "m", base_url=f"http://127.0.0.1:{port}/v1", dim=4, max_retries=2, sleep=sleeps.append
    )
    with pytest.raises(
        EmbeddingError,
        match=r"127\.0\.0\.1:\d+/v1/embeddings failed after 3 attempts: connection failed \(ConnectError",
    ):
        emb.embed_queries(["x"])
    assert len(sleeps) == 2


def test_unreachable_server_fails_at_probe_time() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(EmbeddingError, match="connection failed"):
        OpenAIEmbedder("m", base_url=f"http://127.0.0.1:{port}/v1", max_retries=0)


def test_wrong_dims_are_an_error(server: FakeEmbeddingServer) -> None:
    server.behaviour.wrong_dim = 8
    emb, _ = _embedder(server)
    with pytest.raises(EmbeddingError, match="dimension mismatch: spec says 16, model gives 8"):
        emb.embed_documents(["x"])


def test_spec_dim_checked_by_make_embedder(server: FakeEmbeddingServer) -> None:
    emb = make_embedder(
        {"kind": "openai", "model": "m", "dim": 1024, "options": {"base_url": server.base_url}}
    )
    with pytest.raises(EmbeddingError, match="spec says 1024, model gives 16"):
        emb.embed_queries(["x"])


def test_missing_items_are_an_error(server: FakeEmbeddingServer) -> None:
    server.behaviour.drop_last = True
    emb, _ = _embedder(server)
    with pytest.raises(EmbeddingError, match=r"expected indices 0\.\.2, got 2 items"):
        emb.embed_documents(["a", "b", "c"])


def test_non_json_answer_is_an_error(server: FakeEmbeddingServer) -> None:
    server.behaviour.raw_body = b"<html>proxy error</html>"
    emb, _ = _embedder(server)
    with pytest.raises(EmbeddingError, match="is not an OpenAI embeddings response"):
        emb.embed_documents(["a"])


def test_api_key_from_option_or_env_and_never_in_spec(
    server: FakeEmbeddingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    emb, _ = _embedder(server, api_key="sk-secret")
    emb.embed_documents(["a"])
    assert server.requests[-1]["auth"] == "Bearer sk-secret"
    assert "sk-secret" not in emb.spec().model_dump_json()
    monkeypatch.setenv("MY_KEY", "sk-env")
    emb2, _ = _embedder(server, api_key_env="MY_KEY")
    emb2.embed_documents(["a"])
    assert server.requests[-1]["auth"] == "Bearer sk-env"
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    emb3, _ = _embedder(server)
    emb3.embed_documents(["a"])
    assert server.requests[-1]["auth"] is None


def test_query_prefix_only_on_queries(server: FakeEmbeddingServer) -> None:
    emb, _ = _embedder(server, query_prefix="query: ", document_prefix="passage: ")
    emb.embed_queries(["goal"])
    emb.embed_documents(["goal"])
    assert [r["body"]["input"] for r in server.requests] == [["query: goal"], ["passage: goal"]]


def test_one_client_shared_across_threads(server: FakeEmbeddingServer) -> None:
    emb, _ = _embedder(server, batch_size=3)
    texts = [[f"t{i}-{j}" for j in range(7)] for i in range(16)]
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(emb.embed_documents, texts))
    for t, r in zip(texts, results, strict=True):
        np.testing.assert_allclose(r, _unit(t), atol=1e-6)
    emb.close()


def test_bad_base_url() -> None:
    with pytest.raises(EmbeddingError, match="base_url must start with http"):
        OpenAIEmbedder("m", base_url="localhost:8000/v1", dim=4)
