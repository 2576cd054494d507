"""The per-query probe rule (ann.IvfIndex.adaptive_probes, chosen in recall.py): on top of
the fixed probe count, a query far from every centroid probes more lists, so queries unlike
the data (across a modality gap, shifted off it) reach recall the fixed count tuned on the
same build queries misses, while data-like queries probe exactly the fixed lists. The data are a
64-d Gaussian mixture; "gap" queries are data draws blurred and moved along one shared
direction, as text queries sit relative to video vectors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from playscout.search.embedded.ann import ADAPTIVE_RULE, RELATIVE_RULE
from playscout.search.embedded.recall import (
    ADAPTIVE_DEPTHS,
    DATA_AT_FIXED,
    AnnOptions,
    adaptive_depth,
    build_ann,
    describe_setting,
)
from playscout.search.embedded.vectors import VectorStore, VectorWriter
from tests.search.mixture import DIM, ROWS, K, draw_rows, gap_queries


def _search(
    store: VectorStore, x: np.ndarray, queries: np.ndarray, **kw: Any
) -> tuple[float, float]:
    """Mean recall@K against exact, and the median lists probed."""
    hits, probes = [], []
    for q in queries:
        exact = set(np.argsort(-(x @ q))[:K].tolist())
        hits.append(len(set(store.search(q, K, **kw)[0].tolist()) & exact) / K)
        probes.append(store.last_probes)
    return float(np.mean(hits)), float(np.median(probes))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, np.ndarray, dict[str, Any]]:
    d = tmp_path_factory.mktemp("mixture")
    w = VectorWriter(d / "vectors.npy", DIM)
    w.append(draw_rows(ROWS, 1))
    w.close()
    opts = AnnOptions(target_recall=0.95, min_rows=1000, queries=100, k=K, compare_exact=False)
    return d, np.load(d / "vectors.npy"), build_ann(d, opts)


def test_far_queries_probe_more_and_reach_what_the_fixed_setting_misses(built: Any) -> None:
    d, x, setting = built
    rule = setting["adaptive"]
    assert rule["chosen"] and rule["least"] == setting["nprobe"]
    assert rule["probes_median"]["data"] == setting["nprobe"]  # the data rows: as before
    assert f"per-query probes (depth {rule['depth']})" in describe_setting(setting)
    store = VectorStore.open(d)
    assert rule["rule"] == ADAPTIVE_RULE
    assert store.adaptive == (rule["depth"], rule["least"], rule["most"], False)
    like, far = draw_rows(60, 5), gap_queries(60, 6)
    like_recall, like_probes = _search(store, x, like)
    far_recall, far_probes = _search(store, x, far)
    fixed_like, _ = _search(store, x, like, probe=setting["nprobe"])
    fixed_far, _ = _search(store, x, far, probe=setting["nprobe"])
    # data-like queries: the fixed setting's lists (most of them exactly), and its recall
    assert like_probes == setting["nprobe"] and like_recall >= fixed_like
    # far queries: more lists, and recall the fixed count does not reach
    assert far_probes > 1.5 * setting["nprobe"]
    assert far_recall > fixed_far + 0.1


def test_a_probe_override_takes_the_fixed_path(built: Any) -> None:
    d, _, _ = built
    store = VectorStore.open(d)
    store.search(gap_queries(1, 8)[0], K, probe=3)
    assert store.last_probes == 3
    store.search(gap_queries(1, 8)[0], K)
    assert store.last_probes > 3


def test_the_rule_is_bounded_and_padded(built: Any) -> None:
    d, _, _ = built
    ivf = VectorStore.open(d).ivf
    assert ivf is not None
    queries = np.concatenate([draw_rows(3, 9), gap_queries(3, 10)])
    assign, dist = ivf.adaptive_probes(queries, depth=300, least=4, most=40)
    counts = (assign >= 0).sum(axis=1)
    assert ((counts >= 4) & (counts <= 40)).all() and (assign == -1).any()
    sims = queries @ ivf.centroids.T
    for row, n in zip(assign, counts.tolist(), strict=True):
        assert len(set(row[:n].tolist())) == n  # distinct lists, nearest first
    first = np.take_along_axis(sims, assign[:, :1], axis=1)[:, 0]
    assert np.allclose(first, sims.max(axis=1))
    assert np.allclose(dist[:, 0], first)
    # a deeper rule probes at least as many lists per query
    deeper = (ivf.adaptive_probes(queries, depth=600, least=4, most=40)[0] >= 0).sum(axis=1)
    assert (deeper >= counts).all()


def test_the_depth_is_the_deepest_that_leaves_data_rows_at_the_fixed_count(built: Any) -> None:
    d, _, _ = built
    ivf = VectorStore.open(d).ivf
    assert ivf is not None
    rows, nprobe = draw_rows(100, 11), 8

    def at_fixed(depth: int) -> float:
        counts = (ivf.adaptive_probes(rows, depth, nprobe, 64)[0] >= 0).sum(axis=1)
        return float(np.mean(counts <= nprobe))

    depth = adaptive_depth(ivf, rows, nprobe, 64)
    assert 0 < depth < ADAPTIVE_DEPTHS
    assert at_fixed(depth) >= DATA_AT_FIXED > at_fixed(depth + 1)


def test_the_margin_is_absolute_so_far_queries_get_the_same_reach(built: Any) -> None:
    """A row's score is its centroid's similarity plus its residual's product with the query,
    and residuals are the data's size whatever the query: a query with a low best similarity
    gets the same margin (the first rule scaled it by |s1| and cut short exactly those)."""
    d, _, _ = built
    ivf = VectorStore.open(d).ivf
    assert ivf is not None
    far = gap_queries(20, 12)
    sims = np.sort(far @ ivf.centroids.T, axis=1)[:, ::-1]
    assert (sims[:, 0] < 0.9).all()
    depth = 150
    counts = (ivf.adaptive_probes(far, depth, 1, ivf.nlist)[0] >= 0).sum(axis=1)
    expected = (sims >= sims[:, :1] - depth / 1000).sum(axis=1)
    assert (counts == expected).all()
    scaled = (ivf.adaptive_probes(far, depth, 1, ivf.nlist, relative=True)[0] >= 0).sum(axis=1)
    assert (scaled <= counts).all() and (scaled < counts).any()


def test_an_index_recorded_with_the_relative_rule_keeps_it(built: Any, tmp_path: Path) -> None:
    d, _, _ = built
    copy = tmp_path / "old"
    copy.mkdir()
    for f in d.iterdir():
        (copy / f.name).symlink_to(f)
    (copy / "ann.json").unlink()
    setting = json.loads((d / "ann.json").read_text())
    setting["adaptive"]["rule"] = RELATIVE_RULE
    (copy / "ann.json").write_text(json.dumps(setting))
    rule = setting["adaptive"]
    assert VectorStore.open(copy).adaptive == (rule["depth"], rule["least"], rule["most"], True)
