"""How a search spreads over the cores: an IVF search (ann.py, parallel_mode) splits a single
query's lists over the threads, a batch its queries, on every path (fixed lists, the per-query
rule, a filter), and finds faiss's default candidates (one thread a query); a small exact scan
(vectors.py) runs on one BLAS thread."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from playscout.embed.blas import blas_controller
from playscout.search.embedded import ann
from playscout.search.embedded import vectors as vec
from playscout.search.embedded.ann import IvfIndex
from playscout.search.embedded.vectors import RowRange, Selection, VectorStore, VectorWriter

ROWS, DIM, WANT = 20_000, 32, 40


@pytest.fixture(scope="module")
def ivf() -> IvfIndex:
    x = np.random.default_rng(0).standard_normal((ROWS, DIM)).astype(np.float32)
    return IvfIndex.train(x / np.linalg.norm(x, axis=1, keepdims=True))


def _paths(ivf: IvfIndex, queries: np.ndarray) -> dict[str, Any]:
    sel = Selection(ivf, np.arange(0, ROWS, 7), ROWS)
    return {
        "fixed": lambda: ivf.batch_candidates(queries, WANT, 8),
        "rule": lambda: ivf.adaptive_candidates(queries, WANT, 200, 4, 64)[0],
        "filter": lambda: ivf.filtered_candidates(queries, WANT, 8, sel.counts, sel.selector, 1.0),
    }


@pytest.mark.parametrize("n, mode", [(1, ann.ONE_QUERY), (12, None)])
def test_a_search_spreads_by_its_size_and_finds_the_default_candidates(
    ivf: IvfIndex, n: int, mode: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    q = np.random.default_rng(n).standard_normal((n, DIM)).astype(np.float32)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    batch = {
        "fixed": ann.QUERY_BATCH,
        "rule": ann.PREASSIGNED_BATCH,
        "filter": ann.PREASSIGNED_BATCH,
    }
    spread = {}
    for name, search in _paths(ivf, q).items():
        spread[name] = search()
        assert ivf.ivf.parallel_mode == (batch[name] if mode is None else mode), name
    assert spread["fixed"].shape == (n, WANT)
    # faiss's default: every search on one thread a query
    for name in ("ONE_QUERY", "QUERY_BATCH", "PREASSIGNED_BATCH"):
        monkeypatch.setattr(ann, name, 0)
    for name, search in _paths(ivf, q).items():
        default = search()
        assert ivf.ivf.parallel_mode == 0
        assert all(
            set(a.tolist()) == set(b.tolist()) for a, b in zip(spread[name], default, strict=True)
        ), name
    single = ivf.candidates(q[0], WANT, 8)
    assert ivf.ivf.parallel_mode == 0 and set(single.tolist()) == set(spread["fixed"][0].tolist())


def test_small_exact_scans_run_on_one_blas_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OpenBLAS's threads spin after a call and slow the split IVF search that follows, so a
    scan small enough that the second thread saves little runs on one; a large one keeps the
    library's count."""
    x = np.random.default_rng(1).standard_normal((ROWS, DIM)).astype(np.float32)
    w = VectorWriter(tmp_path / "vectors.npy", DIM)
    w.append(x)
    w.close()
    store = VectorStore.open(tmp_path)

    def blas_threads() -> int:
        return max(i["num_threads"] for i in blas_controller().info() if i["user_api"] == "blas")

    own = blas_threads()
    seen: list[int] = []
    scan = VectorStore._scan

    def spy(self: VectorStore, *args: Any, **kwargs: Any) -> np.ndarray:
        seen.append(blas_threads())
        return scan(self, *args, **kwargs)

    monkeypatch.setattr(VectorStore, "_scan", spy)
    monkeypatch.setattr(vec, "ONE_BLAS_THREAD_ROWS", ROWS // 2)
    q = x[3] / np.linalg.norm(x[3])
    small = store.search(q, 10, RowRange(0, ROWS // 4), exact=True)
    assert seen == [1] and blas_threads() == own  # restored after the scan
    store.search(q, 10, exact=True)
    assert seen[-1] == own
    assert small[0][0] == 3  # the row itself, found on one thread
