"""The embedded index's ANN: recall measured and recorded at build (recall.py), the IVF path
with filters as selectors (ann.py), and the per-search override. Vectors are uniform on the
sphere, the distribution hardest for IVF, so a fixed small probe count visibly fails."""

from __future__ import annotations

import itertools
import json
import mmap
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from playscout.embed import MiniLMEmbedder
from playscout.search import IndexOpenError, open_backend
from playscout.search.embedded import vectors as vec
from playscout.search.embedded.ann import ANN_FILE, IvfIndex
from playscout.search.embedded.recall import (
    BUDGET_STEPS,
    FILTER_SHARES,
    LADDERS,
    P5_BELOW_TARGET,
    AnnOptions,
    Step,
    build_ann,
    choose_nprobe,
    describe_setting,
    filter_shares,
    lower_bound,
    reaches,
)
from playscout.search.embedded.vectors import RowRange, VectorStore, VectorWriter

DIM, ROWS, K = 32, 10_240, 20  # 256 lists of ~40 rows
OLD_FIXED_NPROBE = 16  # the setting every index got before recall was measured


def _sphere(n: int, dim: int, seed: int) -> np.ndarray:
    x = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _write(directory: Path, x: np.ndarray) -> Path:
    w = VectorWriter(directory / "vectors.npy", x.shape[1])
    w.append(x)
    w.close()
    return directory


def _brute(x: np.ndarray, q: np.ndarray, k: int, rows: np.ndarray | None = None) -> set[int]:
    ids = np.arange(len(x)) if rows is None else rows
    return set(ids[np.argsort(-(x[ids] @ q))[:k]].tolist())


def _recall(store: VectorStore, x: np.ndarray, queries: np.ndarray, **kw: Any) -> float:
    rows = kw.get("rows")
    hits = [
        len(set(store.search(q, K, **kw)[0].tolist()) & _brute(x, q, K, rows)) / K for q in queries
    ]
    return float(np.mean(hits))


@pytest.fixture(scope="module")
def tuned(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, np.ndarray, dict[str, Any]]:
    d = _write(tmp_path_factory.mktemp("tuned"), _sphere(ROWS, DIM, 0))
    opts = AnnOptions(target_recall=0.9, min_rows=1000, queries=60, k=K, compare_exact=False)
    return d, np.load(d / "vectors.npy"), build_ann(d, opts)


def test_build_measures_recall_and_records_the_setting(tuned: Any) -> None:
    d, x, setting = tuned
    assert setting["kind"] == "faiss-ivf-sq8" and (d / ANN_FILE).is_file()
    assert setting["recall"] >= 0.9 and setting["target_recall"] == 0.9
    assert setting["queries"] == {"data": 60, "far": 60} and setting["k"] == K
    recorded = json.loads((d / vec.META_FILE).read_text())
    assert {k: v for k, v in recorded.items() if k not in LADDERS} == setting
    ladder = [s["nprobe"] for s in recorded["ladder"]]
    # the climb starts where the probed lists hold enough candidates (no exact fallback)
    lists = setting["nlist"]
    assert ladder[0] >= 2 * K * vec.OVERSAMPLE * lists / ROWS > ladder[0] / 2
    assert ladder[1] == 2 * ladder[0] and setting["nprobe"] in ladder
    # fresh queries, not the ones the build measured with, reach the target too
    store = VectorStore.open(d)
    queries = _sphere(40, DIM, 1)
    assert store.nprobe == setting["nprobe"] > OLD_FIXED_NPROBE
    assert _recall(store, x, queries) >= 0.85
    assert store.last_path == "ann"
    # and the old fixed setting would not have: this data needs the measurement
    assert _recall(store, x, queries, probe=OLD_FIXED_NPROBE) < 0.6


def test_small_channel_is_exact_by_construction(tmp_path: Path) -> None:
    d = _write(tmp_path, _sphere(500, DIM, 0))
    setting = build_ann(d)
    assert setting["kind"] == "exact" and setting["recall"] == 1.0
    assert "recall 1.0 by construction (500 rows < min 50000)" in setting["reason"]
    assert not (d / ANN_FILE).exists()
    store = VectorStore.open(d)
    store.search(_sphere(1, DIM, 1)[0], 10)
    assert store.ivf is None and store.last_path == "exact"


def test_text_queries_go_through_the_query_embedder(tmp_path: Path, minilm: MiniLMEmbedder) -> None:
    d = _write(tmp_path, _sphere(ROWS, minilm.dim, 0))
    asked: list[list[int]] = []

    def texts(rows: Any) -> list[str]:
        asked.append(list(rows))
        return [f"player {r} made a layup from the left corner in the fourth quarter" for r in rows]

    opts = AnnOptions(target_recall=0.8, min_rows=1000, queries=30, k=K, compare_exact=False)
    setting = build_ann(d, opts, texts, minilm)
    assert len(asked) == 1 and len(asked[0]) == 30
    assert setting["queries"] == {"data": 30, "text": 30, "far": 30}
    assert set(setting["recall_by_queries"]) == {"data", "text", "far"}
    assert min(setting["recall_by_queries"].values()) > setting["recall"] >= 0.8


def test_filters_are_selectors_and_keep_recall(tuned: Any, monkeypatch: Any) -> None:
    d, x, _ = tuned
    store = VectorStore.open(d)
    monkeypatch.setattr(vec, "EXACT_MAX_ROWS", 100)
    queries = _sphere(20, DIM, 2)
    tenth = np.sort(np.random.default_rng(3).choice(ROWS, ROWS // 10, replace=False))
    assert _recall(store, x, queries, rows=tenth) >= 0.85
    found, _ = store.search(queries[0], K, tenth)
    assert store.last_path == "ann" and set(found.tolist()) <= set(tenth.tolist())
    # many queries at once (build-time measurement) find what each finds alone, though
    # their probe lists differ in length (shorter ones padded with -1)
    sel = vec.Selection(store.ivf, tenth, ROWS)
    ivf = store.ivf
    assert ivf is not None
    batch = ivf.filtered_candidates(queries, 40, 8, sel.counts, sel.selector, 2.0)
    alone = [ivf.filtered_candidates(q, 40, 8, sel.counts, sel.selector, 2.0)[0] for q in queries]
    assert (batch == np.stack(alone)).all()
    assert (ivf.filtered_probes(queries, 8, sel.counts, 2.0)[0] == -1).any()  # padded
    # a large contiguous range goes through the index too, never outside the range
    found, _ = store.search(queries[0], K, RowRange(1000, 6000))
    assert store.last_path == "ann" and ((found >= 1000) & (found < 6000)).all()
    # rows far from the query: the probe count grows until enough of them were scanned
    q = queries[0]
    far = np.sort(np.argsort(x @ q)[:1000]).astype(np.int64)
    found, _ = store.search(q, K, far)
    assert store.last_path == "ann"
    assert len(set(found.tolist()) & _brute(x, q, K, far)) / K >= 0.85


def test_probe_override_per_search(tuned: Any) -> None:
    d, x, _ = tuned
    store = VectorStore.open(d)
    q = _sphere(1, DIM, 4)[0]
    store.search(q, K, probe=0)
    assert store.last_path == "exact"
    everything, _ = store.search(q, K, probe=IvfIndex.load(d, ROWS).nlist)
    assert store.last_path == "ann" and set(everything.tolist()) == _brute(x, q, K)


class ScriptedLadder:
    """Stands in for build-time measurement (recall and latency per nprobe) so the choice
    rule can be checked on exact numbers; real measurement is tested above."""

    def __init__(self, recall: Any, ms: Any, target: float = 0.95) -> None:
        self.recall, self.ms, self.target, self.asked = recall, ms, target, []

    def __call__(self, nprobe: int) -> Step:
        self.asked.append(nprobe)
        r = self.recall(nprobe)
        return {"nprobe": nprobe, "data": r, "ms": self.ms(nprobe), "ok": r >= self.target}


def test_choice_is_the_least_probing_setting_that_reaches_the_target() -> None:
    ladder = ScriptedLadder(lambda p: min(1.0, p / 100), lambda p: p * 0.1)
    chosen, why = choose_nprobe(ladder, exact_ms=50.0, nlist=1024)
    assert why == "" and chosen is not None
    assert 95 <= chosen["nprobe"] <= 95 + 64 // 8 and chosen["ok"]
    assert ladder.asked[:8] == [1, 2, 4, 8, 16, 32, 64, 128]


def test_choice_is_exact_when_the_scan_is_no_slower_or_the_target_is_out_of_reach() -> None:
    slow = ScriptedLadder(lambda p: min(1.0, p / 100), lambda p: p * 0.1)
    chosen, why = choose_nprobe(slow, exact_ms=5.0, nlist=1024)
    assert chosen is None and "no faster than an exact scan" in why
    assert slow.asked[-1] == 64  # stopped at the first setting as slow as a scan
    capped = ScriptedLadder(lambda p: 0.5, lambda p: 0.0)
    chosen, why = choose_nprobe(capped, exact_ms=1.0, nlist=64)
    assert chosen is None and why == "no IVF setting reached the target recall"
    assert capped.asked[-1] == 64


def test_open_backend_takes_the_probe_override(synth_index: Any) -> None:
    backend = open_backend(synth_index.index_dir, ann_probe=3)
    assert backend.ann_probe == 3
    with pytest.raises(IndexOpenError, match="embedded index only"):
        open_backend("http://127.0.0.1:1/playscout", ann_probe=3)


class RecordingMap:
    """Stands in for the mmap of a MappedMatrix to record which byte ranges a prefetch asks
    the kernel for (the kernel's side cannot be observed from a test)."""

    def __init__(self, size: int) -> None:
        self.size, self.calls = size, []

    def __len__(self) -> int:
        return self.size

    def madvise(self, option: int, start: int, length: int) -> None:
        self.calls.append((start, start + length))


def test_prefetch_asks_for_every_row_in_page_aligned_runs(tuned: Any) -> None:
    d, _, _ = tuned
    matrix = vec.MappedMatrix(d / "vectors.npy")
    recorder = RecordingMap(len(matrix._map))
    matrix._map = recorder  # type: ignore[assignment]
    rows = np.unique(
        np.concatenate([[0, 1, 2, ROWS - 1], np.random.default_rng(5).choice(ROWS, 50)])
    )
    matrix.prefetch(rows)
    runs = recorder.calls
    assert all(a % mmap.PAGESIZE == 0 and b <= len(recorder) for a, b in runs)
    assert all(b1 < a2 for (_, b1), (a2, _) in itertools.pairwise(runs))  # disjoint
    assert len(runs) < len(rows)  # adjacent rows share a run
    for r in rows.tolist():
        lo = matrix.offset + r * matrix.row_bytes
        assert any(a <= lo and lo + matrix.row_bytes <= b for a, b in runs), r


class GatherLog(np.ndarray):
    """A row matrix that records how many rows each gather by an index array takes."""

    gathered: ClassVar[list[int]] = []

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, np.ndarray) and self.ndim == 2:  # rows, not a score vector
            GatherLog.gathered.append(len(key))
        return super().__getitem__(key)


def test_an_exact_filtered_scan_reads_stored_together_rows_in_place(tuned: Any) -> None:
    """A filter whose rows lie together (a season, a game's clips, alternate rows of a team's
    games) is scored span by span, with the same rows and scores as a gather (only the
    finalists are gathered, to score them as every other path does); scattered rows are
    still gathered (scanning past them would read more than it saves)."""
    d, x, _ = tuned
    store = VectorStore.open(d)
    q = x[7]
    together = np.concatenate([np.arange(100, 900), np.arange(1000, 3000, 2), [5000]])
    assert [s.tolist() for s in vec.spans(together)] == [[100, 1000, 5000], [900, 2999, 5001]]
    store.matrix = store.matrix.view(GatherLog)
    GatherLog.gathered = []
    rows, scores = store.search(q, K, together, exact=True)
    expect = together[np.argsort(-(x[together] @ q), kind="stable")[:K]]
    assert rows.tolist() == expect.tolist()
    assert np.array_equal(scores, vec.row_scores(x[rows], q))
    assert GatherLog.gathered == [K]  # the finalists alone
    block = np.arange(100, 900)  # a season: the spans are the rows themselves
    GatherLog.gathered = []
    rows, _ = store.search(q, K, block, exact=True)
    assert rows.tolist() == block[np.argsort(-(x[block] @ q), kind="stable")[:K]].tolist()
    assert GatherLog.gathered == [K]
    scattered = np.sort(np.random.default_rng(3).choice(ROWS, 300, replace=False))
    GatherLog.gathered = []
    rows, _ = store.search(q, K, scattered, exact=True)
    assert set(rows.tolist()) == _brute(x, q, K, scattered)
    assert GatherLog.gathered == [300, K]  # every row, then the finalists


def test_a_filter_stored_together_is_scanned_in_place_where_the_build_says_it_is_faster(
    tuned: Any, monkeypatch: Any
) -> None:
    monkeypatch.setattr(vec, "EXACT_MAX_ROWS", 100)
    d, x, _ = tuned
    store = VectorStore.open(d)
    assert store.scan_ms > 0  # the build's exact scan, read back from ann.json
    store.filter_budgets = [(0.05, 1.0), (0.3, 1.0)]
    store.filter_ms = [(0.05, 2.0), (0.3, 4.0)]  # the IVF path as the build timed it
    store.scan_ms = 20.0  # every row in place: a 10% span 2.0 ms against IVF 2.5 ms
    season = RowRange(2048, 2048 + ROWS // 10)
    scattered = np.sort(np.random.default_rng(4).choice(ROWS, ROWS // 10, replace=False))
    alternate = np.arange(0, 2 * (ROWS // 10), 2)  # every other row: spans cover twice them
    q = x[11]
    for rows, path in [
        (season, "exact"),
        (np.arange(season.start, season.stop), "exact"),
        (scattered, "ann"),
        (alternate, "ann"),  # 4.0 ms in place against 2.5 ms
    ]:
        store.search(q, K, rows)
        assert store.last_path == path
        assert store.takes_exact(rows) == (path == "exact")
    store.scan_ms = 10.0
    store.search(q, K, alternate)
    assert store.last_path == "exact"
    store.search(q, K, alternate, budget_factor=1.0)  # the build measuring the IVF path
    assert store.last_path == "ann"


def test_the_page_cache_is_asked_for_rows_only_while_it_is_cold(
    tuned: Any, monkeypatch: Any
) -> None:
    """From the open, and again after a gather that read from disk (a major fault), gathers
    prefetch for COLD_SEARCHES searches; a warm cache is left alone (a system call per run
    of pages is most of a warm re-score's cost)."""
    d, x, _ = tuned
    faults = [0]
    monkeypatch.setattr(vec, "major_faults", lambda: faults[0])
    monkeypatch.setattr(vec, "COLD_SEARCHES", 3)
    matrix = vec.MappedMatrix(d / "vectors.npy")
    asked: list[int] = []
    monkeypatch.setattr(matrix, "prefetch", lambda rows: asked.append(len(rows)))
    rows = np.array([3, 70, 900])
    for _ in range(5):
        np.testing.assert_array_equal(matrix.gather(rows), x[rows])
    assert asked == [3, 3, 3]  # cold from the open, then warm

    real_rows = matrix.rows

    class Faulting:
        def __getitem__(self, key: Any) -> Any:
            faults[0] += 1  # this gather read from disk
            return real_rows[key]

    matrix.rows = Faulting()  # type: ignore[assignment]
    matrix.gather(rows)
    matrix.rows = real_rows
    asked.clear()
    for _ in range(5):
        matrix.gather(rows)
    assert asked == [3, 3, 3]


def test_copies_of_a_row_score_alike_on_every_path(tmp_path: Path, monkeypatch: Any) -> None:
    """BLAS rounds a row's product by its place in the block; identical rows must still tie
    exactly and come out by row, filtered or not, exact or re-scored from IVF candidates."""
    x = _sphere(4000, DIM, 2)
    copies = np.r_[5:9, 1500:1531, 3990:4000]
    x[copies] = x[17]
    d = _write(tmp_path, x)
    build_ann(d, AnnOptions(target_recall=0.9, min_rows=1000, queries=40, k=K, compare_exact=False))
    monkeypatch.setattr(vec, "EXACT_MAX_ROWS", 10)
    store = VectorStore.open(d)
    q = (x[17] + 0.01 * _sphere(1, DIM, 3)[0]).astype(np.float32)
    q /= np.linalg.norm(q)
    tied = np.sort(np.r_[17, copies])  # a filter's rows are sorted
    for rows in (None, RowRange(0, 4000), np.arange(0, 4000, 2), tied, np.union1d(tied, range(99))):
        for exact in (True, False):
            got, scores = store.search(q, K, rows, exact=exact)
            assert store.last_path == ("exact" if exact else "ann")
            expect = np.sort(
                tied if rows is None or isinstance(rows, RowRange) else np.intersect1d(tied, rows)
            )[:K]
            assert got[: len(expect)].tolist() == expect.tolist()
            assert len(set(scores[: len(expect)].tolist())) == 1


def test_a_setting_must_clear_the_target_by_its_sampling_error(tuned: Any) -> None:
    """The mean over the build's queries is an estimate: a step counts as reaching the target
    by its lower bound (mean less two standard errors), not its mean, so fresh queries do not
    land under the target half the time; and with its 5th percentile at most
    P5_BELOW_TARGET under it, so a good mean cannot hide a tail of queries served badly."""
    d, _, setting = tuned
    target = setting["target_recall"]
    assert setting["recall_lower_bound"] >= target
    ladder = json.loads((d / vec.META_FILE).read_text())["ladder"]

    def clears(step: dict[str, Any], name: str) -> bool:
        return bool(
            step[f"{name}_low"] >= target and step[f"{name}_p5"] >= target - P5_BELOW_TARGET
        )

    assert all(step["ok"] == (clears(step, "data") and clears(step, "far")) for step in ladder)
    # the recorded estimate is the lower bound, not the flattering mean
    assert setting["recall"] == setting["recall_lower_bound"]
    assert setting["recall"] < min(setting["recall_by_queries"].values())
    per_query = np.array([1.0] * 50 + [0.8] * 50)
    assert lower_bound(per_query) == pytest.approx(0.9 - 2 * per_query.std(ddof=1) / 10)
    assert lower_bound(np.array([0.93])) == 0.93
    # a mean well above the target with a tail of queries served badly does not reach it
    tail = np.array([1.0] * 188 + [0.6] * 12)
    assert lower_bound(tail) >= 0.95 and not reaches(tail, 0.95)
    assert reaches(np.array([0.97] * 190 + [0.9] * 10), 0.95)


def _tight_mixture(n: int, centres: int, seed: int) -> np.ndarray:
    """Clusters about as tight, per IVF list, as the benchmark's 3,000-centre mixture at 1.76M
    rows: there the unfiltered setting probes 2 lists and a 6.6% filter kept recall 0.73."""
    rng = np.random.default_rng(seed)
    c = _sphere(centres, DIM * 2, seed)
    x = c[rng.integers(0, centres, n)] + rng.standard_normal((n, DIM * 2)).astype(
        np.float32
    ) * 0.9 / np.sqrt(DIM * 2)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_filtered_budget_is_measured_at_build_where_the_unfiltered_one_misses(
    tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setattr(vec, "EXACT_MAX_ROWS", 100)  # filters of >100 rows take the IVF path
    rows, centres = 20_000, 750
    x = _tight_mixture(rows, centres, 0)
    d = _write(tmp_path, x)
    # tuned on rows alone: the unfiltered count they set is the one whose budget misses
    opts = AnnOptions(
        target_recall=0.95, min_rows=1000, queries=100, k=K, compare_exact=False, far_queries=False
    )
    setting = build_ann(d, opts)
    filtered = setting["filtered"]
    assert [f["share"] for f in filtered] == [0.0051, 0.05, 0.1, 0.3]
    assert all(f["budget_factor"] > 0 and f["recall_lower_bound"] >= 0.95 for f in filtered)
    assert max(f["budget_factor"] for f in filtered) > 1
    ladders = json.loads((d / vec.META_FILE).read_text())["filtered_ladders"]
    assert ladders["0.1"][0]["budget_factor"] == 1 / BUDGET_STEPS  # the climb starts low
    line = describe_setting(setting)  # what `index build` prints
    assert "; filters keeping 0.5% budget x" in line and "30.0% budget x" in line
    # fresh queries and a fresh filter: the old budget misses, the measured one holds
    store = VectorStore.open(d)
    rng = np.random.default_rng(9)
    tenth = np.sort(rng.choice(rows, rows // 10, replace=False))
    queries = (
        x[rng.choice(rows, 40, replace=False)]
        + rng.standard_normal((40, DIM * 2)).astype(np.float32) * 0.05
    )
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    assert store.budget_factor(len(tenth)) > 1
    assert _recall(store, x, queries, rows=tenth, budget_factor=1.0) < 0.9
    assert _recall(store, x, queries, rows=tenth) >= 0.95
    assert store.last_path == "ann"


def test_a_filter_far_above_the_target_at_factor_1_scans_less(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """Without cluster structure the nearest selected rows lie wherever the unfiltered
    setting looks, so a budget below the unfiltered scan reaches the target: the ladder
    climbs from 1/BUDGET_STEPS and keeps the least factor, which still finds enough
    candidates (no fallback to an exact scan) and holds recall on fresh queries."""
    monkeypatch.setattr(vec, "EXACT_MAX_ROWS", 100)
    rows = 20_000
    x = _sphere(rows, DIM * 2, 1)
    d = _write(tmp_path, x)
    opts = AnnOptions(target_recall=0.95, min_rows=1000, queries=100, k=K, compare_exact=False)
    setting = build_ann(d, opts)
    tenth = next(f for f in setting["filtered"] if f["share"] == 0.1)
    assert 0 < tenth["budget_factor"] < 1 and tenth["recall_lower_bound"] >= 0.95
    store = VectorStore.open(d)
    rng = np.random.default_rng(9)
    subset = np.sort(rng.choice(rows, rows // 10, replace=False))
    queries = _sphere(40, DIM * 2, 5)
    assert store.budget_factor(len(subset)) == tenth["budget_factor"]
    assert _recall(store, x, queries, rows=subset) >= 0.93
    assert store.last_path == "ann"
    # the least budget still scans the rows a search wants, on the fewest lists
    ivf = store.ivf
    assert ivf is not None
    counts = ivf.selected_per_list(subset)
    assign, _ = ivf.filtered_probes(queries[:1], 1, counts, 1 / BUDGET_STEPS, K * vec.OVERSAMPLE)
    scanned = counts[assign[0][assign[0] >= 0]]
    assert scanned.sum() >= K * vec.OVERSAMPLE > scanned[:-1].sum()


def test_filters_are_measured_from_the_smallest_share_on_the_ivf_path(monkeypatch: Any) -> None:
    monkeypatch.setattr(vec, "EXACT_MAX_ROWS", 40_000)
    assert filter_shares(1_760_230, FILTER_SHARES) == [0.0228, 0.05, 0.1, 0.3]
    assert filter_shares(857_000, FILTER_SHARES) == [0.0467, 0.1, 0.3]  # 5% is too close
    assert filter_shares(195_000, FILTER_SHARES) == [0.2052, 0.3]
    assert filter_shares(40_000, FILTER_SHARES) == []  # every filter is searched exactly


def test_a_filter_takes_the_factor_of_the_shares_measured_around_it(
    tuned: Any, monkeypatch: Any
) -> None:
    monkeypatch.setattr(vec, "EXACT_MAX_ROWS", 100)
    d, _, _ = tuned
    n = ROWS
    store = VectorStore.open(d)
    assert store.budget_factor(n // 10) == 1.0  # built before filters were measured
    store.filter_budgets = [(0.01, 2.0), (0.05, 0.0), (0.1, 3.0), (0.3, 5.0)]
    assert store.budget_factor(n // 200) == 2.0  # below the smallest share: its factor
    assert store.budget_factor(n // 50) == 0.0  # the larger share searched exactly
    assert store.budget_factor(int(n * 0.07)) == 3.0  # the smaller one exact, the larger 3
    # at a measured share, what the build measured there: exact at 5%, though 10% has a factor
    assert store.budget_factor(int(n * 0.05)) == 0.0
    assert store.budget_factor(int(n * 0.1)) == 3.0
    assert store.budget_factor(int(n * 0.2)) == 5.0  # the larger of 3 and 5
    assert store.budget_factor(int(n * 0.6)) == 5.0  # above: the largest measured
    store.filter_budgets = [(0.1, 4.0), (0.3, 0.0)]
    assert store.budget_factor(int(n * 0.6)) == 0.0
    q = _sphere(1, DIM, 6)[0]
    big = np.arange(n // 2, dtype=np.int64)
    store.search(q, K, big)
    assert store.last_path == "exact"  # factor 0: the build found no IVF budget worth it
    store.search(q, K, big, probe=8)
    assert store.last_path == "ann"  # an explicit probe count asks for the IVF path
