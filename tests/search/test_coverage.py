"""Recall predicted from the lists probed (coverage.py) and the ladder walked on it
(recall.choose_verified): the prediction must bound the served path's measured recall from
above and stay close to it, on every path the tuning predicts (the fixed lists, the per-query
rule, a filter's budget), for rows and for queries off the data; and the choice is taken only
once measured."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from playscout.search.embedded import vectors as vec
from playscout.search.embedded.ann import IvfIndex
from playscout.search.embedded.coverage import covered_recall, list_ranks
from playscout.search.embedded.far_queries import far_queries
from playscout.search.embedded.recall import (
    AnnOptions,
    QuerySet,
    Step,
    _exact_top,
    _predicted,
    _recall,
    adaptive_rule,
    build_ann,
    choose_verified,
)
from playscout.search.embedded.vectors import MappedMatrix, Selection, VectorStore, VectorWriter
from tests.search.mixture import DIM, ROWS, K, draw_rows


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> tuple[VectorStore, IvfIndex, np.ndarray]:
    x = draw_rows(ROWS, 1)
    d = tmp_path_factory.mktemp("coverage")
    w = VectorWriter(d / "vectors.npy", DIM)
    w.append(x)
    w.close()
    matrix = MappedMatrix(d / "vectors.npy")
    ivf = IvfIndex.train(matrix.rows)
    return VectorStore(matrix, ivf, nprobe=1), ivf, x


def _sets(x: np.ndarray) -> list[QuerySet]:
    rng = np.random.default_rng(5)
    own = np.sort(rng.choice(len(x), 80, replace=False))
    far, groups = far_queries(x[rng.choice(len(x), 80, replace=False)], rng)
    return [
        QuerySet("data", np.ascontiguousarray(x[own]), own),
        QuerySet("far", far, None, groups=groups),
    ]


def test_the_prediction_bounds_the_measured_recall_on_every_path(index: Any) -> None:
    store, ivf, x = index
    subset = np.sort(np.random.default_rng(7).choice(len(x), len(x) // 10, replace=False))
    sel = Selection(ivf, subset, ivf.rows)
    for qs in _sets(x):
        qs.kth, qs.top = _exact_top(x, qs, K)
        qs.kth_filtered, qs.top_filtered = _exact_top(x, qs, K, subset)
        paths: list[dict[str, Any]] = [{"nprobe": n} for n in (1, 4, 16)] + [
            {"nprobe": 4, "adaptive": adaptive_rule(ivf, x[:200], 4)},
            {"nprobe": 4, "filtered": (sel, 0.5)},
            {"nprobe": 4, "filtered": (sel, 2.0)},
        ]
        spread = []
        for path in paths:
            got = _recall(store, ivf, qs, k=K, **path)
            told = _predicted(ivf, qs, k=K, **path)
            # the served path ranks by 8-bit codes first: it can only lose what is covered
            # (but for a row tied with the k-th within float rounding, which counts either way)
            assert (told >= got - 1 / K - 1e-9).all(), (qs.name, path)
            assert np.mean(told < got) <= 0.05, (qs.name, path)
            assert told.mean() - got.mean() <= 0.01, (qs.name, path)
            spread.append(told.mean())
        # the paths differ (a prediction that ignored the lists would not)
        assert max(spread) - min(spread) > 0.2, qs.name


def test_covered_recall_reads_counts_and_padded_lists_alike(index: Any) -> None:
    _, ivf, x = index
    q = np.ascontiguousarray(x[:3])
    ranks = list_ranks(ivf, q)
    assert sorted(ranks[0].tolist()) == list(range(ivf.nlist))
    assert (ranks[np.arange(3), ivf.list_of_row[:3]] == 0).mean() > 0.5  # rows sit in their list
    top = np.stack([np.argsort(-(x @ v))[:K] for v in q])
    lists = np.argsort(ranks, axis=1)[:, :5].astype(np.int64)
    padded = np.concatenate([lists, np.full((3, 4), -1)], axis=1)
    by_count = covered_recall(ivf, ranks, top, np.full(3, 5))
    assert np.array_equal(by_count, covered_recall(ivf, ranks, top, padded))
    assert (covered_recall(ivf, ranks, top, np.full(3, ivf.nlist)) == 1).all()
    # a missing top row (-1: fewer than k rows) is never covered
    short = top.copy()
    short[:, -1] = -1
    assert (covered_recall(ivf, ranks, short, np.full(3, ivf.nlist)) == 1 - 1 / K).all()


class Ladder:
    """Scripted recall per knob value: `predicted` for the walk, `measured` for the check."""

    def __init__(self, recall: Any, ms: Any = lambda v: 0.0) -> None:
        self.recall, self.ms, self.asked = recall, ms, []

    def __call__(self, value: int) -> Step:
        self.asked.append(value)
        r = self.recall(value)
        return {"nprobe": value, "data": r, "ms": self.ms(value), "ok": r >= 0.95}


def test_the_predicted_choice_is_measured_and_raised_until_it_holds() -> None:
    predicted = Ladder(lambda v: min(1.0, v / 100))
    # the prediction is optimistic: the measured recall needs ~30% more lists
    measured = Ladder(lambda v: min(1.0, v / 130))

    def predict(v: int) -> Step:
        step = predicted(v)
        del step["ms"]  # predicted steps are not timed
        return step

    chosen, why = choose_verified(predict, measured, exact_ms=50.0, nlist=1024)
    assert why == "" and chosen is not None and chosen["ok"]
    first = measured.asked[0]
    assert 95 <= first <= 95 + 64 // 8  # the ladder's choice on the prediction
    # raised by 1/8 of it, then 1/4, ...: few measurements, ending at or above 124
    assert measured.asked == sorted(measured.asked) and len(measured.asked) <= 4
    assert chosen["nprobe"] >= 124 and chosen["nprobe"] == measured.asked[-1]
    # a choice the measurement confirms is measured once
    exact = Ladder(lambda v: min(1.0, v / 100))
    chosen, _ = choose_verified(predict, exact, exact_ms=50.0, nlist=1024)
    assert exact.asked == [first] and chosen is not None


def test_a_measured_step_no_faster_than_a_scan_or_out_of_reach_means_exact() -> None:
    def predict(v: int) -> Step:
        return {"nprobe": v, "ok": v >= 100}

    slow = Ladder(lambda v: 1.0, ms=lambda v: v * 0.1)
    chosen, why = choose_verified(predict, slow, exact_ms=5.0, nlist=1024)
    assert chosen is None and "no faster than an exact scan" in why
    capped = Ladder(lambda v: 0.5)
    chosen, why = choose_verified(predict, capped, exact_ms=50.0, nlist=128)
    assert chosen is None and why == "no IVF setting reached the target recall"
    assert capped.asked[-1] == 128


def test_the_build_walks_on_predictions_and_takes_a_measured_step(tmp_path: Path) -> None:
    x = draw_rows(ROWS, 2)
    w = VectorWriter(tmp_path / "vectors.npy", DIM)
    w.append(x)
    w.close()
    opts = AnnOptions(target_recall=0.95, min_rows=1000, queries=100, k=K, compare_exact=False)
    setting = build_ann(tmp_path, opts)
    recorded = json.loads((tmp_path / vec.META_FILE).read_text())
    ladder = recorded["ladder"]
    walked = [s for s in ladder if s.get("predicted")]
    checked = [s for s in ladder if not s.get("predicted")]
    assert len(walked) > len(checked) >= 1
    assert all("ms" not in s for s in walked) and all("ms" in s for s in checked)
    chosen = next(s for s in checked if s["nprobe"] == setting["nprobe"])
    assert chosen["ok"] and setting["recall"] == min(
        chosen[f"{name}_low"] for name in setting["queries"]
    )
    for filtered in recorded["filtered_ladders"].values():
        assert any(s.get("predicted") for s in filtered)
        assert not filtered[-1].get("predicted") and filtered[-1]["ok"]
