"""Dense vectors: a float32 .npy matrix (row = ordinal) memory-mapped at open, plus, for large
collections, an IVF-SQ8 index (ann.py) whose probe setting was chosen at build time by
measured recall (recall.py, recorded in ann.json and the manifest).

Search is exact (BLAS over the candidate rows) when the channel chose exact search, when the
caller asks for it, or when a filter keeps few rows; otherwise the IVF index proposes
`k * oversample` candidates among the allowed rows (a filter is a faiss ID selector, not a
post-filter) and they are re-scored exactly from the float32 rows, so reported scores are
exact. Only those candidate rows of the float32 file are read per search; while the page
cache is cold they are prefetched with one madvise(WILLNEED) per run of pages, so the reads
overlap instead of faulting in one after another (MappedMatrix.gather).
"""

from __future__ import annotations

import bisect
import contextlib
import json
import mmap
import resource
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np

from playscout.embed.blas import one_blas_thread

if TYPE_CHECKING:  # faiss loads with the first IVF channel: an exact index never needs it
    import faiss

    from playscout.search.embedded.ann import AdaptiveRule, IvfIndex

HEADER_BYTES = 128  # reserved .npy header so rows can be streamed before the row count is known
EXACT_MAX_ROWS = 40_000  # filters keeping up to this many rows are searched exactly
OVERSAMPLE = 4  # IVF candidates per wanted hit, re-scored from float32
# An exact filtered scan reads the selected rows in place, span by span, rather than gathering
# them, where the spans cover at most SPAN_SCAN_RATIO rows per selected row; runs of selected
# rows fewer than SPAN_GAP rows apart share a span. At 1.76M x 384, a gather cost 0.45 us a
# row (a 6.8% filter of scattered rows: 54 ms) and a scan in place 0.06 us (a 10% season
# stored together: 11 ms against 58 ms gathered).
SPAN_GAP = 32
SPAN_SCAN_RATIO = 3
ROUNDING = 1e-5  # scores this close may differ by float rounding alone (unit rows)
SAME_SHARE = 0.01  # a filter within 1% (relative) of a measured share takes that share's choice
META_FILE = "ann.json"  # the channel's search setting (kind, nprobe, measured recall)
_PAGE = mmap.PAGESIZE
COLD_SEARCHES = 64  # gathers that prefetch after one that read from disk (MappedMatrix.gather)
_RUSAGE = getattr(resource, "RUSAGE_THREAD", resource.RUSAGE_SELF)


def major_faults() -> int:
    """Page faults that had to read from disk, so far, in this thread (Linux)."""
    return resource.getrusage(_RUSAGE).ru_majflt


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
        self.cold = COLD_SEARCHES  # gathers left that prefetch first (gather)

    def gather(self, rows: np.ndarray) -> np.ndarray:
        """The rows `rows` (sorted unique). While the page cache is cold (from the open, and
        for COLD_SEARCHES gathers after one that took a major page fault) their pages are
        asked for first (prefetch), so the reads overlap; warm, that asking is one system
        call per run of pages for nothing (400 re-scored rows: 1.2 ms of a 6.8 ms search on
        the 2-core machine, 2.6 ms in all on a GPU machine whose kernel is gVisor)."""
        if self.cold > 0:
            self.cold -= 1
            self.prefetch(rows)
        before = major_faults()
        out = self.rows[rows]
        if major_faults() > before:
            self.cold = COLD_SEARCHES
        return out

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


def spans(rows: np.ndarray, gap: int = SPAN_GAP) -> tuple[np.ndarray, np.ndarray]:
    """[start, stop) blocks covering sorted unique rows, joining runs under `gap` rows apart."""
    if not len(rows):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    breaks = np.flatnonzero(np.diff(rows) > gap) + 1
    starts = rows[np.concatenate([[0], breaks])]
    stops = rows[np.concatenate([breaks - 1, [len(rows) - 1]])] + 1
    return starts, stops


def in_place_spans(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The spans that read sorted unique rows in place, or None where they would cover more
    than SPAN_SCAN_RATIO rows per row (gathering the rows costs less)."""
    starts, stops = spans(rows)
    if int((stops - starts).sum()) > SPAN_SCAN_RATIO * len(rows):
        return None
    return starts, stops


# Exact scans of fewer rows than this score on one BLAS thread. OpenBLAS's threads spin for
# about 0.1 s after a call, and an IVF search that splits its lists over the cores (ann.py)
# right after a two-thread scan ran at one thread's speed: at 1.76M rows on 2 cores, 13.7 ms
# where it took 7.2 ms alone, 7.9 ms after a one-thread scan. Below this size the second
# thread saves little (a 40,000-row filter scanned in 17.6 ms on two threads, 19.0 on one);
# larger scans keep both (all 1.76M rows: 106 ms on two, 198 ms on one).
ONE_BLAS_THREAD_ROWS = 65_536


@contextlib.contextmanager
def blas_threads_for(rows: int) -> Iterator[None]:
    """One BLAS thread while scanning `rows` rows where that is fewer than
    ONE_BLAS_THREAD_ROWS, the library's own count otherwise."""
    if rows >= ONE_BLAS_THREAD_ROWS:
        yield
        return
    with one_blas_thread():
        yield


def top_k(rows: np.ndarray, scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Top k by score, ties by row, so exact and ANN paths agree on ordering."""
    if len(scores) > k:
        part = np.argpartition(-scores, k - 1)[:k]
        kth = scores[part].min()
        part = np.flatnonzero(scores >= kth)  # keep every tie at the boundary
        rows, scores = rows[part], scores[part]
    order = np.lexsort((rows, -scores))[:k]
    return rows[order], scores[order]


def row_scores(rows: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Each row's product with q, summed in one order whatever the row's place: BLAS rounds a
    row's product differently with its position in the block (seen: copies of one row scored
    1 ulp apart), and ties, broken by row, must order alike on every path (the GPU's
    candidates and the CPU's exact scan)."""
    return np.einsum("ij,j->i", rows, q).astype(np.float32, copy=False)


def finalists(scores: np.ndarray, k: int) -> np.ndarray:
    """Positions of the top k scores and of every score within rounding of the k-th."""
    if len(scores) <= k:
        return np.arange(len(scores))
    kth = float(np.partition(scores, len(scores) - k)[len(scores) - k])
    return np.flatnonzero(scores >= kth - ROUNDING * max(1.0, abs(kth)))


def rescore(
    matrix: MappedMatrix, cand: np.ndarray, q: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Exact top k among candidate rows (any order, -1 = none), read from the float32 file."""
    cand = np.unique(cand[cand >= 0])
    return top_k(cand, row_scores(matrix.gather(cand), q), k)


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
        scan_ms: float = 0.0,
        filter_ms: Sequence[tuple[float, float]] = (),
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
        # what the build measured: an exact scan of every row, and the filtered IVF path's
        # latency by share (share, ms); a filter stored together is scanned in place where
        # that costs less (_in_place_is_faster)
        self.scan_ms = scan_ms
        self.filter_ms = sorted(filter_ms)
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
        filtered = setting.get("filtered", [])
        budgets = [(f["share"], f.get("budget_factor", 0)) for f in filtered]
        filter_ms = [
            (f["share"], f["ms"]) for f in filtered if f.get("budget_factor") and "ms" in f
        ]
        scan_ms = float(setting.get("latency_ms", {}).get("exact", 0.0))
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
        return cls(mapped, ivf, int(setting["nprobe"]), budgets, adaptive, scan_ms, filter_ms)

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
        if rows is not None and budget_factor is None and self._in_place_is_faster(rows):
            return None
        return nprobe, factor

    def _in_place_is_faster(self, rows: RowRange | np.ndarray) -> bool:
        """Whether scanning the filter's spans in place (_scan_rows) costs less than the IVF
        path: the build's full exact scan scaled to the rows the spans cover, against the
        filtered IVF latency it measured at this share (interpolated between shares). The
        build timed both on random row subsets, which never lie together, so without this a
        season stored together took the IVF path (wide mixture at 1.76M rows: 25 ms) where
        reading its rows in place takes 11 ms."""
        if not self.scan_ms or not self.filter_ms:
            return False
        if isinstance(rows, RowRange):
            covered = len(rows)
        else:
            found = in_place_spans(rows)
            if found is None:
                return False  # gathered: what the build timed as exact at this share
            covered = int((found[1] - found[0]).sum())
        shares, ms = zip(*self.filter_ms, strict=True)
        ivf_ms = float(np.interp(len(rows) / self.n, shares, ms))
        return covered / self.n * self.scan_ms < ivf_ms

    def _exact(self, q: np.ndarray, k: int, rows: RowSet) -> tuple[np.ndarray, np.ndarray]:
        """Every allowed row scored in bulk (BLAS), then the finalists scored again row by row
        (row_scores), so the reported scores and the order of ties are every path's."""
        self.last_path = "exact"
        with blas_threads_for(rowset_size(rows, self.n)):
            if rows is None:
                ids = np.arange(self.n, dtype=np.int64)
                scores = self._scan(0, self.n, q)
            elif isinstance(rows, RowRange):
                ids = np.arange(rows.start, rows.stop, dtype=np.int64)
                scores = self._scan(rows.start, rows.stop, q)
            else:
                ids = np.asarray(rows, dtype=np.int64)
                scores = self._scan_rows(ids, q)
        ids = ids[finalists(scores, k)]
        return top_k(ids, row_scores(self.matrix[ids], q), k)

    def _scan_rows(self, ids: np.ndarray, q: np.ndarray) -> np.ndarray:
        """Scores of sorted unique rows: read in place span by span where the spans cover
        few rows besides them (a season, a team's games), else gathered."""
        found = in_place_spans(ids)
        if found is None:
            return self.matrix[ids] @ q
        starts, stops = found
        offsets = np.concatenate([[0], np.cumsum(stops - starts)])
        out = np.empty(int(offsets[-1]), dtype=np.float32)
        for o, a, b in zip(offsets[:-1].tolist(), starts.tolist(), stops.tolist(), strict=True):
            self._scan(a, b, q, out[o : o + b - a])
        if len(out) == len(ids):  # the spans hold exactly the rows (seasons, games), in order
            return out
        span = np.searchsorted(starts, ids, side="right") - 1
        return out[offsets[span] + ids - starts[span]]

    def _scan(
        self, start: int, stop: int, q: np.ndarray, out: np.ndarray | None = None
    ) -> np.ndarray:
        """Scores of rows [start, stop), read in place (into `out` when given)."""
        out = np.empty(stop - start, dtype=np.float32) if out is None else out
        step = 262_144
        for s in range(start, stop, step):
            e = min(stop, s + step)
            np.dot(self.matrix[s:e], q, out=out[s - start : e - start])
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
