"""IVF-SQ8 (faiss) over the rows of one vector file: the candidate rows of a query, with or
without a filter. Scores here are approximate (8-bit codes); the caller re-scores candidates
from the float32 rows (vectors.VectorStore), so reported scores stay exact.

Why IVF-SQ8: on 2 cores it builds 4-10x faster than an HNSW graph for the same rows (faiss
IVF4096-SQ8 over 1.76M x 384 in ~90 s; usearch HNSW still building after 4 min), needs 1 byte
per dimension plus an 8-byte id per row resident, and one knob, the number of lists probed,
trades recall for latency monotonically, so it can be chosen by measurement at build time
(recall.py) and overridden per search.

A filter becomes a faiss ID selector, and the probe count adapts to it: lists are probed in
order of centroid similarity, skipping lists holding no selected row, until the selected rows
scanned reach a budget: what the unfiltered setting would scan for this query, times a factor
measured at build for the filter's share of the rows (recall.py). At factor 1 a filter that
keeps 10% of the rows probes about ten times the lists, a filter that follows the query's topic
fewer, and a filter far from the query more. The factor is measured because no one value fits:
on tight clusters the unfiltered setting probes 2 lists, and the nearest selected rows of a
6.6% filter lie in many more lists than factor 1 reaches (recall 0.73 at 1.76M rows), while on
real MiniLM rows a 10% filter kept recall 0.998 at factor 1 by probing 2,400 of 4,096 lists,
far more than the target needed.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import faiss
import numpy as np

ANN_FILE = "ann.faiss"
TRAIN_ROWS_PER_LIST = 40  # k-means sample: 40 rows per list (faiss warns below 39)
# The per-query rule as ann.json records it (adaptive_probes); RELATIVE_RULE is the first
# version's, kept so indexes built with it search as they were measured.
ADAPTIVE_RULE = "lists with centroid similarity >= s1 - depth/1000"
RELATIVE_RULE = "lists with centroid similarity >= s1 - depth/1000 * |s1|"
# (depth, least lists, most lists, relative) of a channel's rule, as adaptive_probes takes it
AdaptiveRule = tuple[int, int, int, bool]


def nlist_for(n: int) -> int:
    """About 4 sqrt(n) lists, a power of two in [256, 8192]: 4096 for 1M-2M rows."""
    target = 4 * math.sqrt(max(n, 1))
    return int(min(8192, max(256, 2 ** round(math.log2(target)))))


# faiss's parallel_mode: how one search call spreads over the OpenMP threads. A single query
# splits its lists over them (1: by default faiss scans one query's lists on one thread), a
# batch of preassigned queries splits the queries (3: by default search_preassigned runs a
# whole batch on one thread); a plain batch search splits the queries either way (0). At
# 1.76M rows on this 2-core machine, quiet, a single query took 1.84-1.98x less time split
# (12.4 -> 6.6 ms at the fixed count, 91 -> 48 ms for a far query under the rule, 28 -> 14.6 ms
# under a 10% filter), and a batch of 60 far queries under the rule 1.8x less, with the same
# candidates. It is a field of the index, set before each search: a search that reads
# another's value meanwhile is only spread differently, its result is the same.
ONE_QUERY, QUERY_BATCH, PREASSIGNED_BATCH = 1, 0, 3


def _params(nprobe: int, selector: faiss.IDSelector | None = None) -> faiss.SearchParametersIVF:
    """Per-search parameters, so concurrent searches never share a mutable nprobe."""
    params = faiss.SearchParametersIVF()
    params.nprobe = nprobe
    if selector is not None:
        params.sel = selector
    return params


class IvfIndex:
    """An IVF-SQ8 index (inner product) with each list's size and each row's list."""

    def __init__(self, index: faiss.Index, rows: int) -> None:
        self.index = index  # owns the C++ object that `ivf` (a cast view of it) points at
        self.ivf = faiss.extract_index_ivf(index)
        self.rows = rows
        self.nlist = int(self.ivf.nlist)
        self.centroids = self.ivf.quantizer.reconstruct_n(0, self.nlist)
        self.sizes = np.zeros(self.nlist, dtype=np.int64)
        self.list_of_row = np.full(rows, -1, dtype=np.int32)
        lists = self.ivf.invlists
        assert lists is not None
        for lst in range(self.nlist):
            size = int(lists.list_size(lst))
            if size:
                ids = faiss.rev_swig_ptr(lists.get_ids(lst), size)
                self.list_of_row[ids] = lst
            self.sizes[lst] = size

    @classmethod
    def train(
        cls,
        matrix: np.ndarray,
        seed: int = 0,
        progress: Callable[[str, int, int | None], None] | None = None,
    ) -> IvfIndex:
        """k-means on a sample of rows, then every row added in blocks (the matrix may be a
        memory map larger than RAM)."""
        n, dim = matrix.shape
        nlist = nlist_for(n)
        rng = np.random.default_rng(seed)
        sample = np.sort(rng.choice(n, size=min(n, nlist * TRAIN_ROWS_PER_LIST), replace=False))
        quantizer = faiss.IndexFlatIP(dim)
        index = faiss.IndexIVFScalarQuantizer(
            quantizer, dim, nlist, faiss.ScalarQuantizer.QT_8bit, faiss.METRIC_INNER_PRODUCT
        )
        index.train(np.ascontiguousarray(matrix[sample]))
        step = 100_000
        for start in range(0, n, step):
            index.add(np.ascontiguousarray(matrix[start : start + step]))
            if progress:
                progress("ann", min(n, start + step), n)
        return cls(index, n)

    @classmethod
    def load(cls, directory: Path, rows: int) -> IvfIndex:
        return cls(faiss.read_index(str(directory / ANN_FILE)), rows)

    def save(self, directory: Path) -> None:
        faiss.write_index(self.ivf, str(directory / ANN_FILE))

    def resident_bytes(self) -> int:
        """What stays in RAM: codes + ids per row, centroids, and the row -> list map."""
        per_row = int(self.ivf.code_size) + 8 + self.list_of_row.itemsize
        return len(self.list_of_row) * per_row + self.centroids.nbytes

    def candidates(self, q: np.ndarray, want: int, nprobe: int) -> np.ndarray:
        """Up to `want` rows nearest to the query (one float32 vector) in `nprobe` lists."""
        params = _params(min(nprobe, self.nlist))
        self.ivf.parallel_mode = ONE_QUERY
        _, found = self.ivf.search(q[None, :], want, params=params)
        return found[0]

    def batch_candidates(self, queries: np.ndarray, want: int, nprobe: int) -> np.ndarray:
        """candidates() for many queries at once (build-time recall; uses every core)."""
        params = _params(min(nprobe, self.nlist))
        self.ivf.parallel_mode = ONE_QUERY if len(queries) == 1 else QUERY_BATCH
        _, found = self.ivf.search(np.ascontiguousarray(queries), want, params=params)
        return found

    def filtered_probes(
        self,
        queries: np.ndarray,
        nprobe: int,
        selected: np.ndarray,
        budget_factor: float,
        least_rows: int = 0,
    ) -> tuple[np.ndarray, np.ndarray]:
        """For each query, the lists a filtered search probes, nearest first, padded with -1
        (faiss skips those), and their centroid similarities. `selected` counts the selected
        rows of each list (selected_per_list); at least `least_rows` selected rows are
        scanned (a budget factor below 1 on tight clusters would otherwise find fewer
        candidates than the search wants, and fall back to an exact scan)."""
        # every list, nearest first, from the quantizer (no BLAS threads: adaptive_probes)
        queries = np.ascontiguousarray(np.atleast_2d(queries), dtype=np.float32)
        ranked, order = self.ivf.quantizer.search(queries, self.nlist)
        sims = np.empty_like(ranked)
        np.put_along_axis(sims, order, ranked, axis=1)
        budgets = self.sizes[order[:, : min(nprobe, self.nlist)]].sum(axis=1) * budget_factor
        budgets = np.maximum(budgets, least_rows)
        probes = []
        for row, budget in zip(order, budgets.tolist(), strict=True):
            kept = row[selected[row] > 0]
            scanned = np.cumsum(selected[kept])
            probes.append(kept[: int(np.searchsorted(scanned, budget)) + 1])
        width = max(1, max(len(p) for p in probes))
        assign = np.full((len(probes), width), -1, dtype=np.int64)
        for i, p in enumerate(probes):
            assign[i, : len(p)] = p
        dist = np.take_along_axis(sims, np.maximum(assign, 0), axis=1).astype(np.float32)
        return assign, dist

    def filtered_candidates(
        self,
        queries: np.ndarray,
        want: int,
        nprobe: int,
        selected: np.ndarray,
        selector: faiss.IDSelector,
        budget_factor: float = 1.0,
    ) -> np.ndarray:
        """Up to `want` selected rows nearest to each query (one row of candidates per query,
        -1 where fewer); `selector` admits exactly the rows `selected` counts."""
        queries = np.ascontiguousarray(np.atleast_2d(queries), dtype=np.float32)
        assign, dist = self.filtered_probes(queries, nprobe, selected, budget_factor, want)
        return self._preassigned(queries, want, assign, dist, selector)

    def adaptive_probes(
        self,
        queries: np.ndarray,
        depth: int,
        least: int,
        most: int | None = None,
        relative: bool = False,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The lists each query probes under the adaptive rule, nearest first, padded with -1,
        and their centroid similarities: every list whose centroid similarity is within
        depth/1000 of the best one (s >= s1 - depth/1000), at least `least` and at most `most`
        lists. A query far from every centroid (a text query across a modality gap, one
        shifted off the data) has flat centroid similarities, so many lists fall inside the
        margin; one deep inside a dense list has one centroid well above the rest and probes
        few. The margin is absolute because a row's score is its centroid's similarity plus
        the query's product with the row's residual, whose size is the data's, not the
        query's: `relative` (an index recorded with RELATIVE_RULE) scales it by |s1|, which
        narrows it for exactly the far queries (at 1.76M near-duplicate rows, text queries
        with s1 0.23-0.32 got a margin of 0.02 where their top 100 needed 0.04-0.05:
        recall 0.57-0.73)."""
        # The quantizer's own ranking: for one query it scans the centroids without BLAS, whose
        # threads cost milliseconds per search on a loaded 2-core machine (a numpy product
        # with 2,048 centroids took 8 ms there against 3.5 ms for the whole fixed search).
        most = min(most or self.nlist, self.nlist)
        queries = np.ascontiguousarray(np.atleast_2d(queries), dtype=np.float32)
        sims, lists = self.ivf.quantizer.search(queries, most)
        best = sims[:, :1]
        margin = depth / 1000 * (np.abs(best) if relative else 1.0)
        counts = (sims >= best - margin).sum(axis=1)
        counts = np.clip(counts, min(least, most), most)
        width = int(counts.max())
        assign = np.ascontiguousarray(lists[:, :width], dtype=np.int64)
        assign[np.arange(width)[None, :] >= counts[:, None]] = -1
        return assign, np.ascontiguousarray(sims[:, :width], dtype=np.float32)

    def adaptive_candidates(
        self,
        queries: np.ndarray,
        want: int,
        depth: int,
        least: int,
        most: int | None = None,
        relative: bool = False,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Up to `want` rows nearest to each query in the lists adaptive_probes chooses,
        and how many lists each query probed."""
        queries = np.ascontiguousarray(np.atleast_2d(queries), dtype=np.float32)
        assign, dist = self.adaptive_probes(queries, depth, least, most, relative)
        probed = np.count_nonzero(assign >= 0, axis=1)
        return self._preassigned(queries, want, assign, dist), probed

    def _preassigned(
        self,
        queries: np.ndarray,
        want: int,
        assign: np.ndarray,
        dist: np.ndarray,
        selector: faiss.IDSelector | None = None,
    ) -> np.ndarray:
        """faiss search in the given lists per query (-1 = none); one row of candidates per
        query, -1 where fewer."""
        n = len(queries)
        params = _params(assign.shape[1], selector)
        scores = np.empty((n, want), dtype=np.float32)
        found = np.empty((n, want), dtype=np.int64)
        self.ivf.parallel_mode = ONE_QUERY if n == 1 else PREASSIGNED_BATCH
        # The C entry point: the Python wrapper of search_preassigned refuses `params`.
        self.ivf.search_preassigned_c(  # type: ignore[attr-defined]
            n,
            faiss.swig_ptr(queries),
            want,
            faiss.swig_ptr(assign),
            faiss.swig_ptr(dist),
            faiss.swig_ptr(scores),
            faiss.swig_ptr(found),
            False,
            params,
        )
        return found

    def selected_per_list(self, rows: np.ndarray | slice) -> np.ndarray:
        """How many of `rows` (an index array or a slice of rows) each list holds."""
        return np.bincount(self.list_of_row[rows], minlength=self.nlist)
