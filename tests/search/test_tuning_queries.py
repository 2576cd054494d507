"""Which queries a channel's ANN setting is tuned on (recall.py): sampled rows as the
fallback, a user's query file (`index build --tune-queries`) beside them, and the record of
what each setting was measured on. The data are tight clusters; the file's queries sit
between clusters, where a row-tuned probe count leaves them short of their neighbours."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from playscout.search.embedded import vectors as vec
from playscout.search.embedded.recall import AnnOptions, build_ann, describe_setting
from playscout.search.embedded.vectors import VectorStore, VectorWriter

DIM, ROWS, K, CENTRES = 32, 12_288, 20, 64


def _unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


CENTRE = _unit(np.random.default_rng(0).standard_normal((CENTRES, DIM)))


def _rows(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    noise = rng.standard_normal((n, DIM)) * 0.6 / np.sqrt(DIM)
    return _unit(CENTRE[rng.integers(0, CENTRES, n)] + noise)


def _between(n: int, seed: int) -> np.ndarray:
    """Queries between clusters: a blend of three centres, off every list's centre."""
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, CENTRES, (n, 3))
    return _unit(CENTRE[picks].sum(axis=1) + rng.standard_normal((n, DIM)) * 0.3 / np.sqrt(DIM))


def _write(directory: Path, x: np.ndarray) -> Path:
    w = VectorWriter(directory / "vectors.npy", x.shape[1])
    w.append(x)
    w.close()
    return directory


def _recall(store: VectorStore, x: np.ndarray, queries: np.ndarray, **kw: Any) -> float:
    hits = []
    for q in queries:
        exact = set(np.argsort(-(x @ q))[:K].tolist())
        hits.append(len(set(store.search(q, K, **kw)[0].tolist()) & exact) / K)
    return float(np.mean(hits))


OPTS = AnnOptions(target_recall=0.9, min_rows=1000, queries=60, k=K, compare_exact=False)
ROWS_ONLY = AnnOptions(**{**OPTS.__dict__, "far_queries": False})


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, np.ndarray]:
    d = _write(tmp_path_factory.mktemp("clusters"), _rows(ROWS, 1))
    return d, np.load(d / "vectors.npy")


def test_rows_are_the_fallback_and_the_record_says_so(data: Any) -> None:
    d, _ = data
    setting = build_ann(d, ROWS_ONLY)
    assert setting["queries"] == {"data": 60}
    assert setting["query_sources"] == {"data": "60 sampled rows, each excluding its own row"}
    assert setting["limited_by"] == "data"


def test_a_query_file_is_tuned_on_and_reaches_queries_like_it(data: Any, tmp_path: Path) -> None:
    d, x = data
    # at 0.95: at 0.9 the per-query rule alone carries these queries on a row-tuned count
    strict = {**OPTS.__dict__, "target_recall": 0.95}
    rows_only = build_ann(d, AnnOptions(**{**strict, "far_queries": False}))
    fresh = _between(60, 3)
    rows_store = VectorStore.open(d)
    path = tmp_path / "mine.npy"
    np.save(path, _between(200, 2))
    setting = build_ann(d, AnnOptions(**{**strict, "tune_queries": path}))
    assert setting["queries"] == {"data": 60, "file": 60}  # drawn down to `queries`
    assert setting["query_sources"]["file"] == "mine.npy: 60 of 200 query vectors"
    assert setting["limited_by"] == "file" and setting["nprobe"] > rows_only["nprobe"]
    recorded = json.loads((d / vec.META_FILE).read_text())
    assert recorded["query_sources"] == setting["query_sources"]
    assert "60 data + 60 file queries, limited by file" in describe_setting(setting)
    # queries like the file's but not in it: the row-tuned setting misses the target on the
    # path that serves them, the file-tuned one reaches it
    assert _recall(rows_store, x, fresh) < 0.95
    assert _recall(VectorStore.open(d), x, fresh) >= 0.95


class _Words:
    """A query embedder that maps each known text to a fixed vector."""

    def __init__(self, table: dict[str, np.ndarray]) -> None:
        self.table = table
        self.asked: list[str] = []

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        self.asked.extend(texts)
        return np.stack([self.table[t] for t in texts])


def test_a_text_file_goes_through_the_channels_query_embedder(data: Any, tmp_path: Path) -> None:
    d, _ = data
    qs = _between(5, 4)
    table = {f"pick and roll {i}": q for i, q in enumerate(qs)}
    path = tmp_path / "queries.txt"
    path.write_text("\n".join(table) + "\n\n")
    words = _Words(table)
    setting = build_ann(d, AnnOptions(**{**OPTS.__dict__, "tune_queries": path}), None, words)
    assert sorted(words.asked) == sorted(table) and setting["queries"]["file"] == 5
    assert setting["query_sources"]["file"] == "queries.txt: 5 of 5 queries, embedded by _Words"
    # a channel with no query embedder cannot embed text queries: tuned on rows alone
    setting = build_ann(d, AnnOptions(**{**OPTS.__dict__, "tune_queries": path}))
    assert "file" not in setting["queries"]


def test_query_files_it_cannot_use(data: Any, tmp_path: Path) -> None:
    d, _ = data
    wide = tmp_path / "wide.npy"
    np.save(wide, np.ones((4, DIM + 1), np.float32))
    setting = build_ann(d, AnnOptions(**{**OPTS.__dict__, "tune_queries": wide}))
    assert "file" not in setting["queries"]  # another channel's width: not this channel's
    for bad, why in (("q.csv", "expected a .npy or .txt file"), ("none.npy", "no such file")):
        with pytest.raises(ValueError, match=why):
            build_ann(d, AnnOptions(**{**OPTS.__dict__, "tune_queries": tmp_path / bad}))
