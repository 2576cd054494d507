"""Exact vector search on a GPU: each vector channel held on the card, every row scored.

An H200 scores 1.76M x 384 fp16 rows for one query in about 0.6 ms (issue 28), faster than
the approximate CPU path and exact, so where `search.device` names a GPU (or is `auto` with
one present) `place_channels` swaps each channel's VectorStore for a `DeviceVectors`:

- the rows live on the device in fp16 (fp32 on the CPU, where the same code runs in tests);
- a query scores every allowed row in one matrix product; a filter is a boolean mask over
  the rows (a game's contiguous range is a slice), so filters never approximate;
- the top `k * OVERSAMPLE` candidates are re-scored in fp32 from the float32 rows on the host
  (`vectors.rescore`, the ANN path's own re-scoring), and the result is checked: every row
  left out scored at most the last candidate's approximate score, and an fp16 score is within
  `slack` of the fp32 one, so when the k-th exact score clears that bound nothing left out can
  beat it; otherwise every row within `slack` of the k-th score is re-scored too. The results
  therefore equal the CPU exact path's (ids and order; tests/search/test_device_search.py).

Without a GPU, with torch unable to see it, or with too little free memory for a channel, the
CPU path stays, with one log line saying why. Concurrent searches (the API's threads) share
products: a search that arrives while another runs waits for the next round and goes with
every other waiting search of the same k and row scope (`DeviceVectors._lead`).
"""

from __future__ import annotations

import logging
import math
import threading
from typing import Any

import numpy as np

from playscout.embed.device import gpu_visible
from playscout.search.embedded.vectors import (
    OVERSAMPLE,
    RowRange,
    RowSet,
    VectorStore,
    rescore,
    rowset_size,
)

log = logging.getLogger(__name__)

# |approximate - exact| score bound per unit of |q| * |row|: fp16 inputs (relative rounding
# 2^-11 each), fp16 output (2^-11) and reduced-precision partial sums a GEMM may use; fp32
# accumulation over <= 4096 dimensions stays far below 2^-12.
SLACK = {"float16": 2.0**-8, "bfloat16": 2.0**-5, "float32": 2.0**-12}
MEMORY_HEADROOM = 256 << 20  # bytes left free on the card beyond a channel and its scratch
BATCH_SCRATCH = 256  # queries per batch that the scratch memory is sized for
_UPLOAD_ROWS = 262_144
# Channels below this many rows stay on the CPU even where search.device names a GPU: their
# CPU search takes milliseconds, while torch's import and the CUDA context cost a cold CLI
# search seconds (issue 36: 5.0-5.3 s with search.device=cuda against 1.2-1.7 s on the CPU).
# An index with no channel this large opens without importing torch.
DEVICE_MIN_ROWS = 250_000


def choose_device(name: str) -> tuple[str | None, str]:
    """(torch device, "") where the vectors go on a GPU, else (None, why not)."""
    if name == "cpu":
        return None, "search.device is cpu"
    if not gpu_visible():
        return None, "no GPU on this machine"
    try:
        import torch
    except ImportError:
        return None, "torch is not installed"
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if not count:
        return None, "torch sees no CUDA device (CPU build of torch?)"
    index = 0 if name in ("auto", "cuda") else int(name.partition(":")[2])
    if index >= count:
        return None, f"{name} named but torch sees {count} CUDA device(s)"
    return f"cuda:{index}", ""


def free_bytes(device: str) -> int:
    import torch

    free, _ = torch.cuda.mem_get_info(torch.device(device))
    return int(free)


class DeviceVectors(VectorStore):
    """A vector channel held on `device` and searched exactly there (see the module doc).
    The host-side store stays: its float32 rows re-score the candidates."""

    def __init__(self, store: VectorStore, device: str) -> None:
        import torch

        super().__init__(store.mapped, store.ivf, store.nprobe, store.filter_budgets)
        self.device = device
        half = device.startswith("cuda")
        self.dtype_name = "float16" if half else "float32"
        dtype = getattr(torch, self.dtype_name)
        self.rows_on_device = torch.empty((self.n, self.dim), dtype=dtype, device=device)
        norm2 = 0.0
        for s in range(0, self.n, _UPLOAD_ROWS):
            block = np.array(self.matrix[s : s + _UPLOAD_ROWS], dtype=np.float32)  # writable
            norm2 = max(norm2, float(np.einsum("ij,ij->i", block, block).max(initial=0.0)))
            self.rows_on_device[s : s + len(block)] = torch.from_numpy(block).to(device, dtype)
        self.max_norm = math.sqrt(norm2)
        self.mapped.cold = 0  # every row was just read: re-scoring finds them in the cache
        self.slack = SLACK[self.dtype_name]
        self.last_path = "device"
        self._lock = threading.Lock()
        self._pending: list[_Request] = []
        self._leading = False
        self.batches: list[int] = []  # sizes of the last products run (tests, benchmarks)

    def search(
        self,
        query: np.ndarray,
        k: int,
        rows: RowSet = None,
        exact: bool = False,
        probe: int | None = None,
        budget_factor: float | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Exact top k (rows int64, scores float32) among `rows`; `exact`, `probe` and
        `budget_factor` steer the CPU's approximate path and change nothing here."""
        request = _Request(np.asarray(query, dtype=np.float32).reshape(-1), k, rows)
        with self._lock:
            self._pending.append(request)
            lead = not self._leading
            self._leading = self._leading or lead
        if lead:
            self._lead()
        request.done.wait()
        if request.error is not None:
            raise request.error
        assert request.result is not None
        return request.result

    def _lead(self) -> None:
        """Concurrent searches share products: the thread that finds no batch running runs
        every waiting search, one product per (k, row scope), until none waits; searches that
        arrive meanwhile wait for its next round (no timer, so a lone search is never held)."""
        while True:
            with self._lock:
                taken, self._pending = self._pending, []
                if not taken:
                    self._leading = False
                    return
            groups: dict[tuple[Any, ...], list[_Request]] = {}
            for r in taken:
                groups.setdefault(r.scope_key(), []).append(r)
            for group in groups.values():
                try:
                    qs = np.stack([r.query for r in group])
                    results = self.search_batch(qs, group[0].k, group[0].rows)
                    self.batches = [*self.batches[-63:], len(group)]
                    for r, res in zip(group, results, strict=True):
                        r.result = res
                except BaseException as e:  # every waiting search hears of it
                    for r in group:
                        r.error = e
                for r in group:
                    r.done.set()

    def search_batch(
        self, queries: np.ndarray, k: int, rows: RowSet = None
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """Exact top k of each query (rows (B, dim)) among the same `rows`, in one product."""
        import torch

        qs = np.array(np.atleast_2d(queries), dtype=np.float32)  # a writable copy for torch
        size = rowset_size(rows, self.n)
        if k <= 0 or size == 0:
            return [(np.zeros(0, np.int64), np.zeros(0, np.float32)) for _ in qs]
        self.last_path = "device"
        dev_q = torch.from_numpy(qs).to(self.device, self.rows_on_device.dtype)
        offset = 0
        if isinstance(rows, RowRange):  # a game: its rows are a slice
            offset = rows.start
            scores = dev_q @ self.rows_on_device[rows.start : rows.stop].T
        else:
            scores = dev_q @ self.rows_on_device.T  # (queries, rows)
            if rows is not None:
                mask = torch.zeros(self.n, dtype=torch.bool, device=self.device)
                mask[torch.from_numpy(np.asarray(rows, dtype=np.int64)).to(self.device)] = True
                scores.masked_fill_(~mask[None, :], float("-inf"))
        want = min(size, k * OVERSAMPLE)
        top = torch.topk(scores, want, dim=1, sorted=False)
        floor = top.values.min(dim=1).values  # each query's lowest candidate score
        packed = torch.cat([top.indices.to(torch.float64), floor[:, None].to(torch.float64)], 1)
        host = packed.cpu().numpy()  # one device-to-host copy for the whole batch
        out = []
        for b, q in enumerate(qs):
            cand = host[b, :-1].astype(np.int64) + offset
            found = rescore(self.mapped, cand, q, k)
            eps = self.slack * float(np.linalg.norm(q)) * self.max_norm
            kth = float(found[1][-1]) if len(found[1]) == k else -math.inf
            if want < size and kth <= float(host[b, -1]) + eps:
                found = self._widen(scores[b], kth - eps, offset, rows, q, k)
            out.append(found)
        return out

    def _widen(
        self, scores: Any, threshold: float, offset: int, rows: RowSet, q: np.ndarray, k: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Every allowed row whose approximate score could still beat the k-th exact one,
        re-scored exactly: rare (near-ties at the candidate boundary)."""
        import torch

        if math.isinf(threshold):
            cand = torch.nonzero(torch.isfinite(scores)).flatten()
        else:
            cand = torch.nonzero(scores >= threshold).flatten()
        found = cand.cpu().numpy().astype(np.int64) + offset
        if rows is not None and not isinstance(rows, RowRange):
            found = found[np.isin(found, rows)]
        return rescore(self.mapped, found, q, k)


class _Request:
    """One search waiting for a product: searches with the same k and row scope (all rows, or
    one row range) share one; a row-index filter goes alone (its mask is its own)."""

    def __init__(self, query: np.ndarray, k: int, rows: RowSet) -> None:
        self.query, self.k, self.rows = query, k, rows
        self.done = threading.Event()
        self.result: tuple[np.ndarray, np.ndarray] | None = None
        self.error: BaseException | None = None

    def scope_key(self) -> tuple[Any, ...]:
        if self.rows is None:
            return (self.k, None)
        if isinstance(self.rows, RowRange):
            return (self.k, self.rows.start, self.rows.stop)
        return (self.k, id(self))


def channels_of(backend: Any) -> list[tuple[str, Any, str]]:
    """(sport/channel name, owner, attribute or key) of every vector channel of an
    EmbeddedBackend, so a store can be swapped in place."""
    found = []
    for sport, s in sorted(backend._sports.items()):
        if s.docs.dense is not None:
            found.append((f"{sport}/documents", s.docs, "dense"))
        for channel in sorted(s.clips.dense):
            found.append((f"{sport}/{channel}", s.clips.dense, channel))
    return found


def _store(channel: tuple[str, Any, str]) -> VectorStore:
    _, owner, key = channel
    return owner[key] if isinstance(owner, dict) else getattr(owner, key)


def place_channels(backend: Any, device: str) -> list[str]:
    """Move an EmbeddedBackend's vector channels of at least DEVICE_MIN_ROWS rows to the GPU
    `device` names (search.device); returns the channels placed. Anything that stays on the
    CPU gets one log line saying why."""
    found = channels_of(backend)
    large = [c for c in found if _store(c).n >= DEVICE_MIN_ROWS]
    if device != "cpu" and found and not large:
        log.info(
            "search.device %s: every vector channel has under %d rows; searched on the CPU "
            "(faster than starting the GPU for them)",
            device,
            DEVICE_MIN_ROWS,
        )
        return []
    where, why = choose_device(device)
    if where is None:
        if device != "cpu":
            log.info("search.device %s: %s; vectors are searched on the CPU", device, why)
        return []
    placed: list[str] = []
    left: list[str] = []
    for name, owner, key in large:
        store = _store((name, owner, key))
        need = store.n * store.dim * 2 + store.n * BATCH_SCRATCH * 2 + MEMORY_HEADROOM
        if free_bytes(where) < need:
            left.append(name)
            continue
        moved = DeviceVectors(store, where)
        if isinstance(owner, dict):
            owner[key] = moved
        else:
            setattr(owner, key, moved)
        placed.append(name)
    if left:
        log.info(
            "search.device %s: too little free memory on %s for %s; those are searched on the CPU",
            device,
            where,
            ", ".join(left),
        )
    if placed:
        log.info(
            "search.device %s: %d vector channel(s) on %s (fp16, exact)", device, len(placed), where
        )
    return placed
