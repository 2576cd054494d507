"""Dense vectors: a float32 .npy matrix (row = ordinal) memory-mapped at open, plus, for large
collections, an IVF-SQ8 index (ann.py) whose probe setting was chosen at build time by
measured recall (recall.py, recorded in ann.json and the manifest).

Search is exact (BLAS over the candidate rows) when the channel chose exact search, when the
caller asks for it, or when a filter keeps few rows; otherwise the IVF index proposes
`k * oversample` candidates among the allowed rows (a filter is a faiss ID selector, not a
post-filter) and they are re-scored exactly from the float32 rows, so reported scores are
exact. Only those candidate rows of the float32 file are read per search: they are
prefetched with one madvise(WILLNEED) each, so on a cold page cache the reads overlap
instead of faulting in one after another.
"""

from __future__ import annotations

import bisect
import json
import mmap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np

if TYPE_CHECKING:  # faiss loads with the first IVF channel: an exact index never needs it
    import faiss

    from playscout.search.embedded.ann import AdaptiveRule, IvfIndex

HEADER_BYTES = 128  # reserved .npy header so rows can be streamed before the row count is known
EXACT_MAX_ROWS = 40_000  # filters keeping up to this many rows are searched exactly
OVERSAMPLE = 4  # IVF candidates per wanted hit, re-scored from float32
SAME_SHARE = 0.01  # a filter within 1% (relative) of a measured share takes that share's choice
META_FILE = "ann.json"  # the channel's search setting (kind, nprobe, measured recall)
_PAGE = mmap.PAGESIZE


@dataclass(frozen=True)
class RowRange:
    """A contiguous [start, stop) block of rows (a game filter on clips)."""

    start: int
    stop: int

    def __len__(self) -> int:
        return self.stop - self.start


# None = every row; RowRange = contiguous block; ndarray = sorted unique int64 rows.
RowSet = RowRange | np.ndarray | None


def rowset_size(rows: RowSet, n: int) -> int:
    return n if rows is None else len(rows)


class VectorWriter:
    """Streams float32 rows into `vectors.npy`; the header is written at close."""

    def __init__(self, path: Path, dim: int) -> None:
        self.path = path
        self.dim = dim
        self.rows = 0
        self._fh: BinaryIO = path.open("wb")
        self._fh.write(b"\0" * HEADER_BYTES)

    def append(self, block: np.ndarray) -> None:
        block = np.ascontiguousarray(block, dtype=np.float32)
        if block.ndim != 2 or block.shape[1] != self.dim:
            raise ValueError(f"vectors of shape {block.shape}, expected (n, {self.dim})")
        self._fh.write(block.tobytes())
        self.rows += block.shape[0]

    def close(self) -> None:
        header = {"descr": "<f4", "fortran_order": False, "shape": (self.rows, self.dim)}
        text = repr(header).encode("latin1")
        pad = HEADER_BYTES - 10 - len(text) - 1
        if pad < 0:
            raise ValueError("vector header does not fit")
        raw = b"\x93NUMPY\x01\x00" + (HEADER_BYTES - 10).to_bytes(2, "little")
        raw += text + b" " * pad + b"\n"
        self._fh.seek(0)
        self._fh.write(raw)
        self._fh.close()


class MappedMatrix:
    """A float32 .npy file mapped read-only, with a handle to ask the kernel for rows ahead."""

    def __init__(self, path: Path) -> None:
        header = np.load(path, mmap_mode="r")  # numpy parses the header; we keep our own map
        if header.dtype != np.float32 or header.ndim != 2 or not header.flags.c_contiguous:
            raise ValueError(f"{path}: expected a C-order float32 matrix, got {header.dtype}")
        self.offset = int(header.offset)
        with path.open("rb") as fh:
            self._map = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        self.rows: np.ndarray = np.ndarray(
            header.shape, np.float32, buffer=self._map, offset=self.offset
        )
        self.row_bytes = int(header.shape[1]) * 4

    def prefetch(self, rows: np.ndarray) -> None:
        """Start reading the pages of `rows` (sorted) so that a gather does not fault them in
        one by one: one madvise(WILLNEED) per run of adjacent pages (passages of a document
        are adjacent rows)."""
        if not len(rows):
            return
        starts = self.offset + rows * self.row_bytes
        first = starts // _PAGE
        last = (starts + self.row_bytes - 1) // _PAGE
        breaks = np.flatnonzero(first[1:] > last[:-1] + 1) + 1
        run_first = first[np.concatenate([[0], breaks])] * _PAGE
        run_end = (last[np.concatenate([breaks - 1, [len(rows) - 1]])] + 1) * _PAGE
        for a, b in zip(run_first.tolist(), run_end.tolist(), strict=True):
            self._map.madvise(mmap.MADV_WILLNEED, a, min(b, len(self._map)) - a)


def top_k(rows: np.ndarray, scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Top k by score, ties by row, so exact and ANN paths agree on ordering."""
    if len(scores) > k:
        part = np.argpartition(-scores, k - 1)[:k]
        kth = scores[part].min()
        part = np.flatnonzero(scores >= kth)  # keep every tie at the boundary
        rows, scores = rows[part], scores[part]
    order = np.lexsort((rows, -scores))[:k]
    return rows[order], scores[order]


def rescore(
    matrix: MappedMatrix, cand: np.ndarray, q: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Exact top k among candidate rows (any order, -1 = none), read from the float32 file."""
    cand = np.unique(cand[cand >= 0])
    matrix.prefetch(cand)
    scores = matrix.rows[cand] @ q
    return top_k(cand, scores.astype(np.float32, copy=False), k)


def read_setting(directory: Path) -> dict[str, Any]:
    """The channel's recorded search setting; an index without one searches exactly."""
    path = directory / META_FILE
    return json.loads(path.read_text()) if path.is_file() else {"kind": "exact"}


class Selection:
    """A row set as the IVF index takes it: per-list counts and a faiss selector (which only
    points at the bitmap, so the bitmap is kept here)."""

    def __init__(self, ivf: IvfIndex, rows: RowRange | np.ndarray, n: int) -> None:
        import faiss

        self.bitmap: np.ndarray | None = None
        if isinstance(rows, RowRange):
            self.counts = ivf.selected_per_list(slice(rows.start, rows.stop))
            self.selector: faiss.IDSelector = faiss.IDSelectorRange(rows.start, rows.stop)
        else:
            self.counts = ivf.selected_per_list(rows)
            mask = np.zeros(n, dtype=bool)
            mask[rows] = True
            self.bitmap = np.packbits(mask, bitorder="little")
            self.selector = faiss.IDSelectorBitmap(n, faiss.swig_ptr(self.bitmap))


class VectorStore:
    """Read side of one vector channel: the mapped float32 rows and, when the channel chose
    it at build time, the IVF index and its probe count."""

    def __init__(
        self,
        mapped: MappedMatrix,
        ivf: IvfIndex | None = None,
        nprobe: int = 0,
        filter_budgets: Sequence[tuple[float, float]] = (),
        adaptive: AdaptiveRule | None = None,
    ) -> None:
        self.mapped = mapped
        self.matrix: np.ndarray = mapped.rows
        self.n, self.dim = self.matrix.shape
        self.ivf = ivf
        self.nprobe = nprobe
        # (share of rows, budget factor; 0 = exact) as measured at build, by share
        self.filter_budgets = sorted(filter_budgets)
        # (depth, least lists, most lists, relative) of the per-query probe rule (ann.adaptive_probes) when the
        # build chose it; unfiltered searches without a probe override then use it
        self.adaptive = adaptive
        self.oversample = OVERSAMPLE
        self.last_path = "none"  # which path the last search took ("exact" / "ann"), for tests
        self.last_probes = 0  # lists the last unfiltered IVF search probed

    @classmethod
    def open(cls, directory: Path) -> VectorStore:
        mapped = MappedMatrix(directory / "vectors.npy")
        setting = read_setting(directory)
        if setting["kind"] == "exact":
            return cls(mapped)
        from playscout.search.embedded.ann import RELATIVE_RULE, IvfIndex

        ivf = IvfIndex.load(directory, len(mapped.rows))
        budgets = [(f["share"], f.get("budget_factor", 0)) for f in setting.get("filtered", [])]
        rule = setting.get("adaptive") or {}
        adaptive = (
            (
                int(rule["depth"]),
                int(rule["least"]),
                int(rule["most"]),
                rule.get("rule") == RELATIVE_RULE,
            )
            if rule.get("chosen")
            else None
        )
        return cls(mapped, ivf, int(setting["nprobe"]), budgets, adaptive)

    def budget_factor(self, size: int) -> float:
        """The filtered budget factor for a filter keeping `size` rows, from the factors
        measured at build: at a measured share (within SAME_SHARE) that share's own factor,
        exact where the build found an exact scan faster there (a filter keeping exactly 5%
        went to the IVF path on the 10% share's factor although the build measured exact
        search as faster at 5%); between two measured shares the larger of their factors (the
        factor a share needs is not monotone in it), exact (0) where the larger share was;
        below the smallest share its factor, above the largest the largest factor measured.
        1.0 for an index built before filters were measured."""
        budgets = self.filter_budgets
        if not budgets:
            return 1.0
        share = size / self.n
        for measured, factor in budgets:
            if abs(share - measured) <= measured * SAME_SHARE:
                return factor
        above = bisect.bisect_right([s for s, _ in budgets], size / self.n)
        if above == 0:
            return budgets[0][1]
        if above == len(budgets):
            return 0.0 if budgets[-1][1] <= 0 else max(f for _, f in budgets)
        low, high = budgets[above - 1][1], budgets[above][1]
        return 0.0 if high <= 0 else max(low, high)

    def search(
        self,
        query: np.ndarray,
        k: int,
        rows: RowSet = None,
        exact: bool = False,
        probe: int | None = None,
        budget_factor: float | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Top-k rows by inner product among `rows`; returns (rows int64, scores float32).
        `probe` overrides the recorded setting for this search (lists probed, 0 = exact), and
        `budget_factor` the recorded filtered budget (build-time measurement)."""
        q = np.ascontiguousarray(query, dtype=np.float32).reshape(-1)
        size = rowset_size(rows, self.n)
        if k <= 0 or size == 0:
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        route = None if exact else self._route(rows, size, probe, budget_factor)
        if route is None:
            return self._exact(q, k, rows)
        return self._ann(q, k, rows, *route, adaptive=probe is None)

    def takes_exact(self, rows: RowSet = None, probe: int | None = None) -> bool:
        """Whether a search of `rows` is an exact scan by rule (no IVF index, probe 0, a filter
        small enough or at a share the build measured exact as faster): its recall is 1.0 by
        construction, so the live recall check skips it."""
        return self._route(rows, rowset_size(rows, self.n), probe, None) is None

    def _route(
        self, rows: RowSet, size: int, probe: int | None, budget_factor: float | None
    ) -> tuple[int, float] | None:
        """(lists to probe, filtered budget factor) of the IVF path, or None for exact."""
        nprobe = self.nprobe if probe is None else probe
        factor = 1.0
        if rows is not None:
            factor = self.budget_factor(size) if budget_factor is None else budget_factor
            if factor <= 0 and probe:
                factor = 1.0  # the caller asked for the IVF path at this probe count
        small = rows is not None and size <= EXACT_MAX_ROWS
        if self.ivf is None or nprobe <= 0 or small or factor <= 0:
            return None
        return nprobe, factor

    def _exact(self, q: np.ndarray, k: int, rows: RowSet) -> tuple[np.ndarray, np.ndarray]:
        self.last_path = "exact"
        if rows is None:
            ids = np.arange(self.n, dtype=np.int64)
            scores = self._scan(0, self.n, q)
        elif isinstance(rows, RowRange):
            ids = np.arange(rows.start, rows.stop, dtype=np.int64)
            scores = self._scan(rows.start, rows.stop, q)
        else:
            ids = np.asarray(rows, dtype=np.int64)
            scores = self.matrix[ids] @ q
        return top_k(ids, scores.astype(np.float32, copy=False), k)

    def _scan(self, start: int, stop: int, q: np.ndarray) -> np.ndarray:
        out = np.empty(stop - start, dtype=np.float32)
        step = 262_144
        for s in range(start, stop, step):
            e = min(stop, s + step)
            out[s - start : e - start] = self.matrix[s:e] @ q
        return out

    def _ann(
        self,
        q: np.ndarray,
        k: int,
        rows: RowRange | np.ndarray | None,
        nprobe: int,
        factor: float,
        adaptive: bool = False,
    ) -> tuple[np.ndarray, np.ndarray]:
        assert self.ivf is not None
        self.last_path = "ann"
        want = min(self.n, k * self.oversample)
        if rows is None and adaptive and self.adaptive is not None:
            found, probed = self.ivf.adaptive_candidates(q, want, *self.adaptive)
            cand, self.last_probes = found[0], int(probed[0])
        elif rows is None:
            cand, self.last_probes = self.ivf.candidates(q, want, nprobe), nprobe
        else:
            sel = Selection(self.ivf, rows, self.n)
            found = self.ivf.filtered_candidates(q, want, nprobe, sel.counts, sel.selector, factor)
            cand = found[0]  # the one query's row
        if np.count_nonzero(cand >= 0) < min(k, rowset_size(rows, self.n)):
            return self._exact(q, k, rows)  # the probed lists hold too few allowed rows
        return rescore(self.mapped, cand, q, k)
