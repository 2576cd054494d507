"""Live recall (search/embedded/live_recall.py), the query log (query_log.py) and `index tune`
(tune.py): the sampler's estimate is the recall of what was served, its warning fires once,
a busy checker drops samples instead of holding the caller, and a tune on a log of far-off
queries raises the probe count and leaves an index that verifies."""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from playscout.cli.main import app
from playscout.search.embedded.ann import IvfIndex
from playscout.search.embedded.integrity import FILES_KEY, record_files, seal
from playscout.search.embedded.layout import FORMAT, MANIFEST, SCHEMA_VERSION
from playscout.search.embedded.live_recall import RecallSampler
from playscout.search.embedded.query_log import QueryLog, read_log, rotated
from playscout.search.embedded.recall import AnnOptions, build_ann
from playscout.search.embedded.vectors import MappedMatrix, RowRange, VectorStore, VectorWriter
from tests.search.test_tuning_queries import _between, _rows

DIM, ROWS, K = 32, 10_240, 20
SPORT, CHANNEL = "basketball", "visual"


def _unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def _write(directory: Path, x: np.ndarray) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    w = VectorWriter(directory / "vectors.npy", x.shape[1])
    w.append(x)
    w.close()
    return directory


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> VectorStore:
    """Uniform vectors on the sphere and an IVF index probing 32 of its 512 lists: recall well
    under 1, so the estimate has something to measure."""
    x = _unit(np.random.default_rng(0).standard_normal((ROWS, DIM)))
    d = _write(tmp_path_factory.mktemp("live"), x)
    mapped = MappedMatrix(d / "vectors.npy")
    return VectorStore(mapped, IvfIndex.train(mapped.rows), nprobe=32)


def _queries(n: int, seed: int) -> np.ndarray:
    return _unit(np.random.default_rng(seed).standard_normal((n, DIM)))


def _direct_recall(store: VectorStore, q: np.ndarray) -> float:
    served = set(store.search(q, K)[0].tolist())
    exact = set(np.argsort(-(store.matrix @ q))[:K].tolist())
    return len(served & exact) / K


def _serve(sampler: RecallSampler, store: VectorStore, q: np.ndarray) -> None:
    """A served search, offered to the sampler as the backend does, then the check awaited."""
    _, scores = store.search(q, K)
    sampler.offer(SPORT, CHANNEL, store, q, None, K, scores)
    assert sampler.wait_idle(timeout=60)


def test_the_estimate_is_the_recall_of_what_was_served(store: VectorStore) -> None:
    sampler = RecallSampler(1.0, lambda s, c: 0.5, window=10)
    queries = _queries(40, 1)
    for q in queries:
        _serve(sampler, store, q)
    direct = [_direct_recall(store, q) for q in queries]
    est = sampler.snapshot()[SPORT][CHANNEL]
    assert est["checked"] == 40 and est["dropped"] == 0
    assert 0.2 < np.mean(direct) < 0.99  # the IVF path misses some: the check is not trivial
    assert est["recall_mean"] == pytest.approx(np.mean(direct), abs=1e-4)
    assert est["recall_recent"] == pytest.approx(np.mean(direct[-10:]), abs=1e-4)
    assert est["recent_checks"] == 10
    sampler.close()


def test_a_wider_search_is_checked_at_the_k_the_build_measured(store: VectorStore) -> None:
    """A hybrid branch asks for 500 rows, the build's target is recall@100: the check reads
    the served top k (best first) against the exact top k, the quantity the target is about."""
    sampler = RecallSampler(1.0, lambda s, c: 0.5, ks=lambda s, c: K)
    queries = _queries(20, 10)
    for q in queries:
        _, scores = store.search(q, 4 * K)
        sampler.offer(SPORT, CHANNEL, store, q, None, 4 * K, scores)
        assert sampler.wait_idle(timeout=60)
    at_k = []
    for q in queries:
        served = store.search(q, 4 * K)[0][:K]
        at_k.append(len(set(served.tolist()) & set(np.argsort(-(store.matrix @ q))[:K].tolist())))
    est = sampler.snapshot()[SPORT][CHANNEL]
    assert est["recall_mean"] == pytest.approx(np.mean(at_k) / K, abs=1e-4)
    sampler.close()


def test_exact_channels_are_not_sampled(store: VectorStore) -> None:
    exact = VectorStore(store.mapped)
    sampler = RecallSampler(1.0, lambda s, c: 0.95)
    q = _queries(1, 2)[0]
    sampler.offer(SPORT, CHANNEL, exact, q, None, K, exact.search(q, K)[1])
    assert sampler.snapshot() == {}


def test_filtered_searches_served_exactly_are_not_sampled(store: VectorStore) -> None:
    """A one-game filter is scanned exactly (recall 1.0 by construction): counting it would lift
    the estimate over what the IVF path serves; the unfiltered search beside it is checked."""
    sampler = RecallSampler(1.0, lambda s, c: 0.95)
    q = _queries(1, 9)[0]
    game = RowRange(237, 474)
    _, scores = store.search(q, K, game)
    assert store.last_path == "exact" and store.takes_exact(game)
    sampler.offer(SPORT, CHANNEL, store, q, game, K, scores)
    assert sampler.wait_idle(timeout=60)
    assert sampler.snapshot() == {}
    _, scores = store.search(q, K)
    assert store.last_path == "ann" and not store.takes_exact(None)
    sampler.offer(SPORT, CHANNEL, store, q, None, K, scores)
    assert sampler.wait_idle(timeout=60)
    assert sampler.snapshot()[SPORT][CHANNEL]["checked"] == 1
    sampler.close()


def test_the_warning_fires_once_when_the_recent_estimate_is_under_target(
    store: VectorStore, caplog: pytest.LogCaptureFixture
) -> None:
    sampler = RecallSampler(1.0, lambda s, c: 0.999, window=20)
    with caplog.at_level(logging.WARNING, "playscout.search.embedded.live_recall"):
        for q in _queries(19, 3):
            _serve(sampler, store, q)
        assert not caplog.records  # too few checks to judge
        for q in _queries(40, 4):
            _serve(sampler, store, q)
    warnings = [r for r in caplog.records if "below the build's target" in r.getMessage()]
    assert len(warnings) == 1
    assert f"{SPORT} {CHANNEL}" in warnings[0].getMessage()
    assert sampler.snapshot()[SPORT][CHANNEL]["below_target"] is True
    sampler.close()


def test_no_warning_while_the_estimate_meets_the_target(
    store: VectorStore, caplog: pytest.LogCaptureFixture
) -> None:
    sampler = RecallSampler(1.0, lambda s, c: 0.1, window=20)
    with caplog.at_level(logging.WARNING):
        for q in _queries(30, 5):
            _serve(sampler, store, q)
    assert not caplog.records
    sampler.close()


class Held:
    """An exact search that waits until released: the checker kept busy."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = threading.Event()

    def __call__(self, store: VectorStore, q: np.ndarray, k: int, rows: Any) -> Any:
        self.started.set()
        assert self.release.wait(timeout=60)
        return store.search(q, k, rows, exact=True)


def test_a_busy_checker_drops_samples_and_never_holds_the_caller(store: VectorStore) -> None:
    held = Held()
    sampler = RecallSampler(1.0, lambda s, c: 0.95, exact=held)
    offered = 0
    for q in _queries(10, 6):  # the caller: returns from every offer while the check waits
        _, scores = store.search(q, K)
        sampler.offer(SPORT, CHANNEL, store, q, None, K, scores)
        offered += 1
    assert held.started.wait(timeout=60)
    est = sampler.snapshot()[SPORT][CHANNEL]
    assert offered == 10 and est["dropped"] == 9 and est["checked"] == 0
    held.release.set()
    assert sampler.wait_idle(timeout=60)
    assert sampler.snapshot()[SPORT][CHANNEL]["checked"] == 1
    sampler.close()


def test_the_rate_samples_a_share(store: VectorStore) -> None:
    sampler = RecallSampler(0.0, lambda s, c: 0.95)
    q = _queries(1, 7)[0]
    sampler.offer(SPORT, CHANNEL, store, q, None, K, store.search(q, K)[1])
    assert sampler.snapshot() == {}


def test_checked_queries_go_to_the_log(store: VectorStore, tmp_path: Path) -> None:
    qlog = QueryLog(tmp_path / "q.jsonl")
    sampler = RecallSampler(1.0, lambda s, c: 0.95, query_log=qlog)
    queries = _queries(3, 8)
    for q in queries:
        _serve(sampler, store, q)
    logged = read_log(qlog.path)
    assert [(e.sport, e.channel) for e in logged] == [(SPORT, CHANNEL)] * 3
    np.testing.assert_array_equal(np.stack([e.vector for e in logged]), queries)
    sampler.close()


def test_the_log_rotates_by_size_and_skips_a_torn_last_line(tmp_path: Path) -> None:
    qlog = QueryLog(tmp_path / "q.jsonl", max_bytes=4096)
    for i in range(40):
        qlog.append(SPORT, CHANNEL, np.full(DIM, i, dtype=np.float32))
    assert rotated(qlog.path).is_file()
    assert qlog.path.stat().st_size <= 4096 and rotated(qlog.path).stat().st_size <= 4096
    with qlog.path.open("ab") as fh:
        fh.write(b'{"sport": "basketball", "chan')  # a writer killed mid-line
    values = [int(e.vector[0]) for e in read_log(qlog.path)]
    assert values == list(range(40 - len(values), 40))  # the newest, oldest first
    qlog.path.write_text('{"sport": 1}\n{"sport": "x"}\n')
    with pytest.raises(ValueError, match="line 1"):
        read_log(qlog.path)


# -- index tune -------------------------------------------------------------------------

# The tuning tests' data: tight clusters, and queries between them (same 32-d centres).


def _index_with_one_ivf_channel(root: Path, opts: AnnOptions) -> Path:
    """The smallest embedded index `index tune` and `index verify` take: one sport, one clip
    channel with an IVF setting chosen on rows, a sealed manifest recording every file."""
    dense = _write(root / SPORT / "clips" / CHANNEL / "dense", _rows(12_288, 1))
    entry = build_ann(dense, opts)
    manifest: dict[str, Any] = {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "sports": {SPORT: {"channels": {CHANNEL: {"dim": DIM, "ann": entry}}}},
    }
    manifest[FILES_KEY] = record_files(root)
    (root / MANIFEST).write_text(json.dumps(seal(manifest)))
    return root


def test_tune_on_a_log_of_far_off_queries_raises_the_probe_count(tmp_path: Path) -> None:
    # built on rows alone, so the log's queries are what the build did not tune for
    opts = AnnOptions(
        target_recall=0.9, min_rows=1000, queries=60, k=K, compare_exact=False, far_queries=False
    )
    root = _index_with_one_ivf_channel(tmp_path / "index", opts)
    before = json.loads((root / MANIFEST).read_text())["sports"][SPORT]["channels"][CHANNEL]
    qlog = QueryLog(tmp_path / "q.jsonl")
    for q in _between(80, 3):
        qlog.append(SPORT, CHANNEL, q)
    qlog.append("hockey", CHANNEL, _between(1, 4)[0])  # another sport's: not tuned on here

    from playscout.search.embedded.tune import tune_index

    tuned = tune_index(root, opts, qlog.path)
    after = tuned[SPORT][CHANNEL]
    assert after["nprobe"] > before["ann"]["nprobe"]
    assert after["limited_by"] == "log"
    assert after["query_sources"]["log"] == "q.jsonl: 60 of 80 logged queries"
    assert after["tuned"]["previous_nprobe"] == before["ann"]["nprobe"]
    recorded = json.loads((root / MANIFEST).read_text())["sports"][SPORT]["channels"][CHANNEL]
    assert recorded["ann"] == after and recorded["dim"] == DIM
    store = VectorStore.open(root / SPORT / "clips" / CHANNEL / "dense")
    assert store.nprobe == after["nprobe"]

    verified = CliRunner().invoke(app, ["index", "verify", str(root)])
    assert verified.exit_code == 0, verified.output


def test_the_tune_command_reports_and_verify_passes(tmp_path: Path) -> None:
    opts = AnnOptions(target_recall=0.9, min_rows=1000, queries=60, k=K, compare_exact=False)
    root = _index_with_one_ivf_channel(tmp_path / "index", opts)
    qlog = QueryLog(tmp_path / "q.jsonl")
    for q in _between(60, 5):
        qlog.append(SPORT, CHANNEL, q)
    runner = CliRunner()
    env = {"PLAYSCOUT_SEARCH__ANN_MIN_ROWS": "1000", "PLAYSCOUT_SEARCH__ANN_QUERIES": "60"}
    tuned = runner.invoke(
        app, ["index", "tune", str(root), "--queries", str(qlog.path), "--json"], env=env
    )
    assert tuned.exit_code == 0, tuned.output
    assert "log" in json.loads(tuned.output)[SPORT][CHANNEL]["queries"]
    verified = runner.invoke(app, ["index", "verify", str(root)])
    assert verified.exit_code == 0, verified.output
    missing = runner.invoke(app, ["index", "tune", str(root), "--queries", str(tmp_path / "no")])
    assert missing.exit_code == 2 and "no such file" in missing.output
