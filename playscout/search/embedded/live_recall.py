"""Live recall: the recall the build measured (recall.py) holds for queries like the ones it
was tuned on; this checks it on the queries users send. A small share of dense clip searches
on an IVF channel is sampled, and the same query and filter are searched exactly off the
request path; the served top-k's recall against the exact one (ties at the cut count, as in
recall.py) feeds a running estimate per (sport, channel): count, mean, and the mean of the most
recent `window` checks. One warning is logged per channel the first time the recent mean
falls under the build's target recall.

The CPU spent is bounded: at most one exact check runs at a time, on one worker thread; a
sample offered while a check runs is dropped and counted, never queued, so a request never
waits for it. Each checked query vector also goes to the query log (query_log.py), which
`playscout index tune` reads."""

from __future__ import annotations

import logging
import queue
import random
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from playscout.search.embedded.query_log import QueryLog
from playscout.search.embedded.recall import TIE_EPS
from playscout.search.embedded.vectors import RowSet, VectorStore

log = logging.getLogger(__name__)

MIN_RECENT = 20  # checks the recent window must hold before it can raise the warning
# The exact search of a check: (store, query, k, rows) -> (rows, scores), best first.
ExactSearch = Callable[[VectorStore, np.ndarray, int, RowSet], tuple[np.ndarray, np.ndarray]]


def exact_search(
    store: VectorStore, q: np.ndarray, k: int, rows: RowSet
) -> tuple[np.ndarray, np.ndarray]:
    return store.search(q, k, rows, exact=True)


def served_recall(served_scores: np.ndarray, exact_scores: np.ndarray) -> float | None:
    """Recall@k of a served answer against the exact one: served rows whose exact score
    reaches the exact k-th score (less float rounding) over k; None when nothing matched."""
    if not len(exact_scores):
        return None
    kth = float(exact_scores[-1])
    hits = int(np.count_nonzero(np.asarray(served_scores) >= kth - TIE_EPS))
    return min(hits, len(exact_scores)) / len(exact_scores)


@dataclass
class ChannelEstimate:
    target: float | None
    window: int
    count: int = 0
    total: float = 0.0
    dropped: int = 0
    warned: bool = False
    recent: deque[float] = field(default_factory=deque)

    def add(self, value: float) -> None:
        self.count += 1
        self.total += value
        self.recent.append(value)
        while len(self.recent) > self.window:
            self.recent.popleft()

    def view(self) -> dict[str, Any]:
        return {
            "checked": self.count,
            "dropped": self.dropped,
            "recall_mean": round(self.total / self.count, 4) if self.count else None,
            "recall_recent": round(float(np.mean(self.recent)), 4) if self.recent else None,
            "recent_checks": len(self.recent),
            "target_recall": self.target,
            "below_target": self.warned,
        }


@dataclass
class _Job:
    sport: str
    channel: str
    store: VectorStore
    vector: np.ndarray
    rows: RowSet
    k: int
    scores: np.ndarray


class RecallSampler:
    """Samples served dense clip searches and checks them exactly on one worker thread.
    `targets(sport, channel)` is the build's target recall of that channel (None: unknown);
    `ks(sport, channel)` the k it measured that recall at. A search for more rows (a hybrid
    branch asks for `search.clip_window`, 500) is checked on its top k: the estimate is then
    the quantity the target is about, not recall@500 read against a recall@100 target."""

    def __init__(
        self,
        rate: float,
        targets: Callable[[str, str], float | None],
        window: int = 200,
        query_log: QueryLog | None = None,
        exact: ExactSearch = exact_search,
        seed: int | None = None,
        ks: Callable[[str, str], int | None] | None = None,
    ) -> None:
        self.rate = rate
        self.targets = targets
        self.ks = ks
        self.window = window
        self.query_log = query_log
        self.exact = exact
        self._rng = random.Random(seed)
        self._lock = threading.Lock()  # guards the estimates
        self._busy = threading.Semaphore(1)  # held from offer to the end of its check
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._estimates: dict[tuple[str, str], ChannelEstimate] = {}
        self._worker: threading.Thread | None = None
        self.errors = 0  # checks that raised (logged), so a broken check is visible

    def offer(
        self,
        sport: str,
        channel: str,
        store: VectorStore,
        vector: np.ndarray,
        rows: RowSet,
        k: int,
        served_scores: np.ndarray,
    ) -> None:
        """Called on the request path after a dense clip search: returns at once. Searches
        served exactly (a channel without an IVF index, a filter the store scans exactly, such
        as one game) are skipped: their recall is 1.0 by construction, and counting them would
        lift the estimate above what the IVF path serves."""
        if store.ivf is None or self.rate <= 0 or self._rng.random() >= self.rate:
            return
        if store.takes_exact(rows):
            return
        if not self._busy.acquire(blocking=False):
            with self._lock:
                self._estimate(sport, channel).dropped += 1
            return
        self._ensure_worker()
        measured_k = self.ks(sport, channel) if self.ks is not None else None
        if measured_k:
            k = min(k, measured_k)  # served scores are best first: their top k is this k's
        vec = np.array(vector, dtype=np.float32).reshape(-1)
        self._jobs.put(_Job(sport, channel, store, vec, rows, k, np.array(served_scores[:k])))

    def _ensure_worker(self) -> None:
        if self._worker is None or not self._worker.is_alive():
            self._worker = threading.Thread(target=self._run, name="live-recall", daemon=True)
            self._worker.start()

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            try:
                self._check(job)
            except Exception:
                self.errors += 1
                log.exception("live recall check of %s %s failed", job.sport, job.channel)
            finally:
                self._busy.release()

    def _check(self, job: _Job) -> None:
        _, exact_scores = self.exact(job.store, job.vector, job.k, job.rows)
        value = served_recall(job.scores, exact_scores)
        if value is not None:
            with self._lock:
                est = self._estimate(job.sport, job.channel)
                est.add(value)
                self._maybe_warn(job.sport, job.channel, est)
        if self.query_log is not None:
            try:
                self.query_log.append(job.sport, job.channel, job.vector)
            except OSError as e:
                log.warning("query log %s: %s", self.query_log.path, e)

    def _estimate(self, sport: str, channel: str) -> ChannelEstimate:
        key = (sport, channel)
        est = self._estimates.get(key)
        if est is None:
            est = self._estimates[key] = ChannelEstimate(self.targets(sport, channel), self.window)
        return est

    def _maybe_warn(self, sport: str, channel: str, est: ChannelEstimate) -> None:
        if est.warned or est.target is None or len(est.recent) < min(self.window, MIN_RECENT):
            return
        recent = float(np.mean(est.recent))
        if recent < est.target:
            est.warned = True
            log.warning(
                "live recall of %s %s is %.3f over its last %d checked searches, below the "
                "build's target %.3f: retune with `playscout index tune` on the query log",
                sport,
                channel,
                recent,
                len(est.recent),
                est.target,
            )

    def snapshot(self) -> dict[str, dict[str, dict[str, Any]]]:
        """{sport: {channel: {checked, dropped, recall_mean, recall_recent, ...}}}."""
        out: dict[str, dict[str, dict[str, Any]]] = {}
        with self._lock:
            for (sport, channel), est in sorted(self._estimates.items()):
                out.setdefault(sport, {})[channel] = est.view()
        return out

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until no check is running (tests, shutdown); False on timeout."""
        if not self._busy.acquire(timeout=timeout):
            return False
        self._busy.release()
        return True

    def close(self) -> None:
        """Stop the worker after the check it is running."""
        if self._worker is not None and self._worker.is_alive():
            self._jobs.put(None)
