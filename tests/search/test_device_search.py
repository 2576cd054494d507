"""Exact search on a device (search/embedded/device.py), run here with torch on the CPU in
fp32: the same code a GPU runs in fp16. Results must equal the CPU exact path's, ids and
order, with and without filters; a GPU repeats the check in fp16 (`gpu` marker)."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

from playscout.embed import EmbeddingError
from playscout.search import open_backend
from playscout.search.backend_api import ClipFilter
from playscout.search.embedded import device as dev
from playscout.search.embedded.device import DeviceVectors, place_channels
from playscout.search.embedded.vectors import RowRange, VectorStore, VectorWriter

N, DIM = 6000, 48


def _store(tmp: Path, matrix: np.ndarray) -> VectorStore:
    d = tmp / "dense"
    d.mkdir(parents=True)
    w = VectorWriter(d / "vectors.npy", matrix.shape[1])
    w.append(matrix)
    w.close()
    return VectorStore.open(d)


def _matrix(seed: int = 0) -> np.ndarray:
    """Clustered unit rows, exact duplicates (ties, broken by row) and near-duplicates closer
    than the fp32 slack (the widening path)."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(12, DIM))
    m = centres[rng.integers(0, 12, N)] + 0.35 * rng.normal(size=(N, DIM))
    m[100:140] = m[50]  # 40 copies of row 50
    m[200:260] = m[60] + 1e-6 * rng.normal(size=(60, DIM))
    return (m / np.linalg.norm(m, axis=1, keepdims=True)).astype(np.float32)


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> tuple[VectorStore, DeviceVectors]:
    cpu = _store(tmp_path_factory.mktemp("dv"), _matrix())
    return cpu, DeviceVectors(cpu, "cpu")


def _queries(matrix: np.ndarray) -> np.ndarray:
    rng = np.random.default_rng(9)
    q = np.concatenate([matrix[[50, 60, 7, 3000]], rng.normal(size=(6, DIM)).astype(np.float32)])
    return (q / np.linalg.norm(q, axis=1, keepdims=True)).astype(np.float32)


def _same(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> None:
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_allclose(a[1], b[1], rtol=0, atol=1e-6)


FILTERS = [
    None,
    RowRange(1000, 2500),
    RowRange(90, 150),
    np.arange(0, N, 7, dtype=np.int64),
    np.array([5, 50, 101, 102, 210, 4000], dtype=np.int64),
]


@pytest.mark.parametrize("rows", FILTERS, ids=["all", "range", "small-range", "every7", "six"])
@pytest.mark.parametrize("k", [1, 10, 100])
def test_device_path_equals_the_cpu_exact_path(
    stores: tuple[VectorStore, DeviceVectors], rows: object, k: int
) -> None:
    cpu, on_device = stores
    for q in _queries(cpu.matrix):
        _same(on_device.search(q, k, rows), cpu.search(q, k, rows, exact=True))  # type: ignore[arg-type]
    assert on_device.last_path == "device"


def test_ties_are_broken_by_row_like_the_cpu(stores: tuple[VectorStore, DeviceVectors]) -> None:
    cpu, on_device = stores
    rows, scores = on_device.search(cpu.matrix[50], 30)
    assert rows[:30].tolist() == sorted(rows[:30].tolist())  # 41 equal rows: lowest first
    _same((rows, scores), cpu.search(cpu.matrix[50], 30, exact=True))


def test_near_ties_past_the_candidates_are_widened(
    stores: tuple[VectorStore, DeviceVectors], monkeypatch: pytest.MonkeyPatch
) -> None:
    """61 rows within 1e-6 of each other and k=5: the 20 candidates cannot prove they hold the
    top 5, so every row within the slack is re-scored."""
    cpu, on_device = stores
    widened = []
    original = DeviceVectors._widen

    def spy(self: DeviceVectors, *args: object) -> tuple[np.ndarray, np.ndarray]:
        widened.append(1)
        return original(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(DeviceVectors, "_widen", spy)
    _same(on_device.search(cpu.matrix[60], 5), cpu.search(cpu.matrix[60], 5, exact=True))
    assert widened


def test_batches_equal_single_queries(stores: tuple[VectorStore, DeviceVectors]) -> None:
    cpu, on_device = stores
    qs = _queries(cpu.matrix)
    for rows in (None, RowRange(10, 4000), np.arange(3, N, 5, dtype=np.int64)):
        batch = on_device.search_batch(qs, 20, rows)
        for q, got in zip(qs, batch, strict=True):
            _same(got, cpu.search(q, 20, rows, exact=True))


def test_empty_and_oversized_requests(stores: tuple[VectorStore, DeviceVectors]) -> None:
    cpu, on_device = stores
    q = cpu.matrix[0]
    assert on_device.search(q, 0)[0].size == 0
    assert on_device.search(q, 5, np.zeros(0, np.int64))[0].size == 0
    _same(on_device.search(q, 50, RowRange(5, 12)), cpu.search(q, 50, RowRange(5, 12), exact=True))


def test_no_gpu_keeps_the_cpu_path_with_one_log_line(
    synth_index: object, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dev, "gpu_visible", lambda: False)
    monkeypatch.setattr(dev, "DEVICE_MIN_ROWS", 0)
    with caplog.at_level(logging.INFO, logger="playscout.search.embedded.device"):
        backend = open_backend(synth_index.index_dir, device="auto")  # type: ignore[attr-defined]
    lines = [r.getMessage() for r in caplog.records if r.name.endswith("device")]
    assert lines == ["search.device auto: no GPU on this machine; vectors are searched on the CPU"]
    clips = backend._sport("basketball").clips  # type: ignore[attr-defined]
    assert not any(isinstance(s, DeviceVectors) for s in clips.dense.values())


def test_too_little_memory_falls_back_per_channel(
    synth_index: object, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dev, "choose_device", lambda name: ("cuda:0", ""))
    monkeypatch.setattr(dev, "free_bytes", lambda where: 1024)
    monkeypatch.setattr(dev, "DEVICE_MIN_ROWS", 0)
    backend = open_backend(synth_index.index_dir)  # type: ignore[attr-defined]
    with caplog.at_level(logging.INFO, logger="playscout.search.embedded.device"):
        assert place_channels(backend, "cuda") == []
    (line,) = [r.getMessage() for r in caplog.records if r.name.endswith("device")]
    assert line.startswith("search.device cuda: too little free memory on cuda:0 for basketball/")


def test_a_small_index_stays_on_the_cpu_without_asking_for_the_gpu(
    synth_index: object, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under DEVICE_MIN_ROWS rows in every channel, search.device=cuda neither imports torch
    nor starts CUDA (a cold CLI search would pay seconds for a search of milliseconds)."""

    def no_gpu_wanted(name: str) -> tuple[str | None, str]:
        raise AssertionError("the GPU was asked for")

    monkeypatch.setattr(dev, "choose_device", no_gpu_wanted)
    with caplog.at_level(logging.INFO, logger="playscout.search.embedded.device"):
        backend = open_backend(synth_index.index_dir, device="cuda")  # type: ignore[attr-defined]
    (line,) = [r.getMessage() for r in caplog.records if r.name.endswith("device")]
    assert line.startswith("search.device cuda: every vector channel has under 250000 rows")
    clips = backend._sport("basketball").clips  # type: ignore[attr-defined]
    assert not any(isinstance(s, DeviceVectors) for s in clips.dense.values())


def test_backend_searches_on_the_device_equal_the_cpu_backend(
    synth_index: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the backend: each channel swapped for a torch-on-CPU DeviceVectors gives the
    same dense hits as the CPU backend, with and without filters."""
    index_dir = synth_index.index_dir  # type: ignore[attr-defined]
    cpu = open_backend(index_dir)
    cpu.exact = True  # type: ignore[attr-defined]
    monkeypatch.setattr(dev, "choose_device", lambda name: ("cpu", ""))
    monkeypatch.setattr(dev, "free_bytes", lambda where: 1 << 40)
    monkeypatch.setattr(dev, "DEVICE_MIN_ROWS", 0)
    on_device = open_backend(index_dir, device="cuda")
    placed = dev.channels_of(on_device)
    assert placed and all(
        isinstance(o[k] if isinstance(o, dict) else getattr(o, k), DeviceVectors)
        for _, o, k in placed
    )
    sport = "basketball"
    games = sorted({c.split("_")[0] for c in _clip_ids(cpu, sport)})
    filters = [
        None,
        ClipFilter(game_ids=games[:1]),
        ClipFilter(periods=[2]),
        ClipFilter(game_ids=games[:2]),
    ]
    for query in ("three pointer from the corner", "turnover", "free throw"):
        for f in filters:
            a = cpu.search_clips(sport, query, f, top_k=25, channel="caption", mode="dense")
            b = on_device.search_clips(sport, query, f, top_k=25, channel="caption", mode="dense")
            assert [(h.clip_id, round(h.score or 0, 5)) for h in a] == [
                (h.clip_id, round(h.score or 0, 5)) for h in b
            ]
        da = cpu.search_documents(sport, query, top_k=10, mode="dense")
        db = on_device.search_documents(sport, query, top_k=10, mode="dense")
        assert [h.doc_id for h in da] == [h.doc_id for h in db]


def _clip_ids(backend: object, sport: str) -> list[str]:
    clips = backend._sport(sport).clips  # type: ignore[attr-defined]
    return [clips.clip_id(r) for r in range(clips.n)]


@pytest.mark.gpu
@pytest.mark.skipif(not dev.choose_device("auto")[0], reason="needs a CUDA GPU")
def test_gpu_fp16_equals_the_cpu_exact_path(tmp_path: Path) -> None:
    cpu = _store(tmp_path, _matrix(1))
    on_gpu = DeviceVectors(cpu, "cuda:0")
    assert on_gpu.dtype_name == "float16"
    for rows in FILTERS:
        for q in _queries(cpu.matrix):
            _same(on_gpu.search(q, 100, rows), cpu.search(q, 100, rows, exact=True))  # type: ignore[arg-type]
        for q, got in zip(
            _queries(cpu.matrix), on_gpu.search_batch(_queries(cpu.matrix), 10, rows), strict=True
        ):  # type: ignore[arg-type]
            _same(got, cpu.search(q, 10, rows, exact=True))  # type: ignore[arg-type]


def test_concurrent_searches_share_products_and_equal_the_cpu(
    stores: tuple[VectorStore, DeviceVectors], monkeypatch: pytest.MonkeyPatch
) -> None:
    """While one product runs, arriving searches wait and go together in the next one; each
    still gets its own exact result, filtered ones included."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    cpu, on_device = stores
    qs = _queries(cpu.matrix)
    first_running = threading.Event()
    release = threading.Event()
    original = DeviceVectors.search_batch

    def slow_first(self: DeviceVectors, queries: np.ndarray, k: int, rows: object = None) -> object:
        if not first_running.is_set():
            first_running.set()
            release.wait(10)  # hold the first product until the others are queued
        return original(self, queries, k, rows)  # type: ignore[arg-type]

    monkeypatch.setattr(DeviceVectors, "search_batch", slow_first)
    on_device.batches = []
    scopes: list[object] = [None, None, None, RowRange(100, 3000), RowRange(100, 3000)]
    scopes += [np.arange(0, N, 3, dtype=np.int64)]
    jobs = [(qs[i % len(qs)], 10, scopes[i % len(scopes)]) for i in range(13)]
    with ThreadPoolExecutor(len(jobs)) as pool:  # every search its own thread
        lead = pool.submit(on_device.search, *jobs[0])
        assert first_running.wait(10)
        rest = [pool.submit(on_device.search, *job) for job in jobs[1:]]
        for _ in range(1000):
            if len(on_device._pending) == len(rest):
                break
            threading.Event().wait(0.01)
        release.set()
        results = [lead.result(), *(f.result() for f in rest)]
    for (q, k, rows), got in zip(jobs, results, strict=True):
        _same(got, cpu.search(q, k, rows, exact=True))  # type: ignore[arg-type]
    assert on_device.batches[0] == 1 and max(on_device.batches) > 1
    assert sum(on_device.batches) == len(jobs)


def test_an_error_reaches_every_search_of_its_product(
    stores: tuple[VectorStore, DeviceVectors], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, on_device = stores

    def broken(self: DeviceVectors, *args: object) -> object:
        raise RuntimeError("CUDA error: out of memory")

    monkeypatch.setattr(DeviceVectors, "search_batch", broken)
    with pytest.raises(RuntimeError, match="out of memory"):
        on_device.search(np.ones(DIM, np.float32), 5)
    assert not on_device._leading  # the next search leads again


def test_query_embedders_run_where_embed_device_says(synth_index: object) -> None:
    index_dir = synth_index.index_dir  # type: ignore[attr-defined]
    backend = open_backend(index_dir, embed_device="cpu")
    placement = backend.embedders["caption"].placement  # type: ignore[attr-defined]
    # fp32 weights on the CPU; the products may run bf16 where the CPU has it (embed/device.py)
    assert (placement.device, placement.dtype) == ("cpu", "float32")
    with pytest.raises(EmbeddingError, match="device 'gpu' is not one of"):
        open_backend(index_dir, embed_device="gpu")
