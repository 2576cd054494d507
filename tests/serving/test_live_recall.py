"""Serve's live recall check end to end (serving/recall.py): a test app over the shared index,
its caption channel given a small IVF index probing one list so its recall is under 1, samples
every dense clip search; the estimate on /readyz and /metrics is the recall of what was served,
and a checker held busy drops samples while searches still complete."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import faiss
import numpy as np
import pytest
from fastapi.testclient import TestClient

from playscout.search import open_backend
from playscout.search.embedded import EmbeddedBackend
from playscout.search.embedded.ann import IvfIndex
from playscout.search.embedded.query_log import read_log
from playscout.search.embedded.vectors import VectorStore
from playscout.serving.app import create_app
from playscout.serving.state import ServingState
from tests.serving.conftest import make_settings
from tests.synthdata import SynthIndex

SPORT, CHANNEL, WINDOW = "basketball", "caption", 10
QUERIES = [
    "three point shot",
    "dunk after a steal",
    "free throw missed",
    "foul in the paint",
    "fast break layup",
    "timeout called",
    "block at the rim",
    "rebound and putback",
]


def _ivf_caption(backend: EmbeddedBackend) -> VectorStore:
    """The caption channel's own vectors under a 4-list IVF index probing 1 list."""
    clips = backend._sport(SPORT).clips
    exact = clips.dense[CHANNEL]
    x = np.ascontiguousarray(exact.matrix)
    quantizer = faiss.IndexFlatIP(x.shape[1])
    index = faiss.IndexIVFScalarQuantizer(
        quantizer, x.shape[1], 4, faiss.ScalarQuantizer.QT_8bit, faiss.METRIC_INNER_PRODUCT
    )
    index.train(x)
    index.add(x)
    store = VectorStore(exact.mapped, IvfIndex(index, len(x)), nprobe=1)
    clips.dense[CHANNEL] = store
    return store


@pytest.fixture
def served(synth_index: SynthIndex, tmp_path: Path) -> Iterator[tuple[TestClient, Any]]:
    backend = open_backend(synth_index.index_dir)  # its own: the shared one stays untouched
    assert isinstance(backend, EmbeddedBackend)
    store = _ivf_caption(backend)
    backend.target_recall = lambda sport, channel: 0.999  # type: ignore[method-assign]
    search = {
        "recall_sample_rate": 1.0,
        "recall_window": WINDOW,
        "query_log": tmp_path / "q.jsonl",
        "clip_window": 10,
        "caption_search": "dense",
    }
    settings = make_settings(tmp_path, synth_index, search=search)
    app = create_app(settings, backend=backend)
    with TestClient(app) as client:
        yield client, (app.state.serving, backend, store)
    backend.close()


def _search(client: TestClient, state: ServingState, query: str) -> None:
    r = client.get("/v1/search/videos", params={"query": query, "mode": "oracle"})
    assert r.status_code == 200, r.text
    assert r.json()["hits"]
    assert state.recall is not None and state.recall.wait_idle(timeout=60)


def test_the_live_estimate_is_the_recall_served(served: Any) -> None:
    client, (state, backend, store) = served
    offers: list[tuple[np.ndarray, int]] = []
    sampler_offer = backend.on_dense_clips

    def recording(sport: str, channel: str, st: Any, q: np.ndarray, *rest: Any) -> None:
        offers.append((np.array(q), rest[1]))
        sampler_offer(sport, channel, st, q, *rest)

    backend.on_dense_clips = recording
    for query in QUERIES:
        _search(client, state, query)
    assert len(offers) == len(QUERIES)
    direct = []
    for q, k in offers:  # the recall of the served path, computed here from scratch
        exact = set(np.argsort(-(store.matrix @ q))[:k].tolist())
        direct.append(len(set(store.search(q, k)[0].tolist()) & exact) / k)
    assert np.mean(direct) < 1  # one list of four misses rows: the check is not trivial

    ready = client.get("/readyz").json()["index"]["recall"][SPORT][CHANNEL]
    assert ready["checked"] == len(QUERIES) and ready["dropped"] == 0
    assert ready["recall_mean"] == pytest.approx(np.mean(direct), abs=1e-4)
    assert ready["recall_recent"] == pytest.approx(np.mean(direct[-WINDOW:]), abs=1e-4)
    assert ready["target_recall"] == 0.999

    text = client.get("/metrics").text
    labels = f'{{channel="{CHANNEL}",sport="{SPORT}"}}'
    assert f"playscout_live_recall_checks_total{labels} {float(len(QUERIES))}" in text
    assert f"playscout_live_recall_dropped_total{labels} 0.0" in text
    mean = next(x for x in text.splitlines() if x.startswith(f"playscout_live_recall_mean{labels}"))
    assert float(mean.split()[-1]) == pytest.approx(np.mean(direct), abs=1e-4)

    logged = read_log(state.settings.search.query_log)
    assert len(logged) == len(QUERIES)
    np.testing.assert_array_equal(logged[0].vector, offers[0][0])


def test_searches_complete_while_the_checker_is_held_busy(served: Any) -> None:
    client, (state, _, _) = served
    release, started = threading.Event(), threading.Event()
    real = state.recall.exact

    def held(*args: Any) -> Any:
        started.set()
        assert release.wait(timeout=60)
        return real(*args)

    state.recall.exact = held
    for query in QUERIES:  # every search answers while the one check waits
        r = client.get("/v1/search/videos", params={"query": query, "mode": "oracle"})
        assert r.status_code == 200, r.text
    assert started.wait(timeout=60)
    ready = client.get("/readyz").json()["index"]["recall"][SPORT][CHANNEL]
    assert ready["checked"] == 0 and ready["dropped"] == len(QUERIES) - 1
    release.set()
    assert state.recall.wait_idle(timeout=60)
    assert state.recall.snapshot()[SPORT][CHANNEL]["checked"] == 1
