"""Recall as a property of an index: at build time, each vector channel measures recall@k of
its IVF index against exact search and picks the setting that reaches the target recall with
the least latency, then records the choice and the measurement (ann.json, and the manifest's
channel entry under "ann").

Queries come from the data itself: sampled rows searched as queries, with the row itself
excluded from both answers (held out), and, when the channel has a query embedder, text
windows of sampled rows' own texts (captions, passages) embedded as queries are, which is
what users send. Recall counts a returned row as correct when its exact score reaches the
k-th exact score (minus float rounding), so rows tied at the cut count either way.

A setting reaches the target only when its measured mean recall minus two standard errors
(over the queries) does: fresh queries land around the measured mean, so a setting chosen right
at the target misses it for about half of what users send (seen on a wide mixture at 1.76M
rows: 0.9505 at build, 0.944 on fresh queries).

The probe ladder doubles until both query sets reach the target, then bisects down; at each
step a few single queries are timed against an exact scan, and the climb stops as soon as an
exact scan is no slower, in which case the channel searches exactly. Below `min_rows` no
index is built (exact search, recall 1.0 by construction), so small test indexes cost
nothing extra; above, the measurement costs about one exact scan per query plus the probes.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from playscout.config import SearchSettings
from playscout.search.core.build import Progress
from playscout.search.core.spec import QueryEmbedder
from playscout.search.embedded.ann import ANN_FILE, IvfIndex
from playscout.search.embedded.vectors import (
    META_FILE,
    OVERSAMPLE,
    MappedMatrix,
    VectorStore,
    rescore,
)

TIE_EPS = 1e-5  # scores within float rounding of the k-th exact score count as correct
TIMED_QUERIES = 15
MARGIN_STDERR = 2.0  # standard errors of the measured mean a setting must clear the target by
GROUND_TRUTH_BLOCK = 65_536

# The texts of rows (captions, passages), for query windows; "" where a row has none.
RowTexts = Callable[[Sequence[int]], list[str]]


@dataclass(frozen=True)
class AnnOptions:
    """Build-time ANN choices (SearchSettings.ann_* in the settings)."""

    target_recall: float = 0.95
    min_rows: int = 50_000
    queries: int = 200
    k: int = 100
    seed: int = 0
    # False keeps the IVF index whenever a setting reaches the target, even where an exact
    # scan is as fast (small test indexes, benchmarks of the IVF path itself).
    compare_exact: bool = True

    @classmethod
    def from_settings(cls, s: SearchSettings) -> AnnOptions:
        return cls(
            target_recall=s.ann_target_recall, min_rows=s.ann_min_rows, queries=s.ann_queries
        )


@dataclass
class QuerySet:
    """Queries and, per query, the exact k-th best score; `own` is each query's own row
    (excluded from its answers) for queries sampled from the data, else None."""

    name: str
    vectors: np.ndarray
    own: np.ndarray | None
    kth: np.ndarray | None = None


def exact_setting(rows: int, reason: str, **measured: Any) -> dict[str, Any]:
    return {"kind": "exact", "rows": rows, "recall": 1.0, "reason": reason, **measured}


def build_ann(
    directory: Path,
    options: AnnOptions | None = None,
    texts: RowTexts | None = None,
    embedder: QueryEmbedder | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Choose, measure and record the search setting of the vectors in `directory` (ann.json,
    and ann.faiss when IVF was chosen); returns the manifest entry."""
    opts = options or AnnOptions()
    matrix = MappedMatrix(directory / "vectors.npy")
    n = len(matrix.rows)
    if n < opts.min_rows:
        setting = exact_setting(
            n, f"exact search, recall 1.0 by construction ({n} rows < min {opts.min_rows})"
        )
        return _record(directory, setting)
    started = time.perf_counter()
    ivf = IvfIndex.train(matrix.rows, seed=opts.seed, progress=progress)
    sets = _query_sets(matrix, opts, texts, embedder)
    for qs in sets:
        qs.kth = _kth_exact(matrix.rows, qs, opts.k)
    if progress:
        progress("ann recall", 0, None)
    store = VectorStore(matrix, ivf, nprobe=1)
    setting = _choose(store, ivf, sets, opts)
    setting["tuning_seconds"] = round(time.perf_counter() - started, 3)
    if setting["kind"] != "exact":
        ivf.save(directory)
    return _record(directory, setting)


def _record(directory: Path, setting: dict[str, Any]) -> dict[str, Any]:
    """ann.json keeps the whole measurement (the probe ladder too); the manifest entry
    returned leaves the ladder out."""
    if setting["kind"] == "exact":
        (directory / ANN_FILE).unlink(missing_ok=True)
    (directory / META_FILE).write_text(json.dumps(setting))
    return {key: value for key, value in setting.items() if key != "ladder"}


def _query_sets(
    matrix: MappedMatrix, opts: AnnOptions, texts: RowTexts | None, embedder: QueryEmbedder | None
) -> list[QuerySet]:
    n = len(matrix.rows)
    rng = np.random.default_rng(opts.seed + 1)
    own = np.sort(rng.choice(n, size=min(n, opts.queries), replace=False))
    sets = [QuerySet("data", np.ascontiguousarray(matrix.rows[own]), own)]
    if texts is not None and embedder is not None:
        rows = np.sort(rng.choice(n, size=min(n, opts.queries), replace=False))
        windows = [w for w in (_window(t, rng) for t in texts(rows.tolist())) if w]
        if windows:
            vectors = np.asarray(embedder.embed_queries(windows), dtype=np.float32)
            sets.append(QuerySet("text", np.ascontiguousarray(vectors), None))
    return sets


def _window(text: str, rng: np.random.Generator) -> str:
    """A query-sized run of 4-12 words from a row's text."""
    words = text.split()
    if not words:
        return ""
    size = int(rng.integers(4, 13))
    start = int(rng.integers(0, max(1, len(words) - size + 1)))
    return " ".join(words[start : start + size])


def _kth_exact(matrix: np.ndarray, qs: QuerySet, k: int) -> np.ndarray:
    """Each query's k-th best exact score over every row but its own, one pass over the rows."""
    m = len(qs.vectors)
    best = np.full((k, m), -np.inf, dtype=np.float32)
    qt = qs.vectors.T
    for start in range(0, len(matrix), GROUND_TRUTH_BLOCK):
        block = np.asarray(matrix[start : start + GROUND_TRUTH_BLOCK]) @ qt
        if qs.own is not None:
            inside = (qs.own >= start) & (qs.own < start + len(block))
            block[qs.own[inside] - start, np.flatnonzero(inside)] = -np.inf
        both = np.concatenate([best, block])
        take = min(k, len(both))
        best = -np.partition(-both, take - 1, axis=0)[:take]
    return best.min(axis=0)


def _recall(store: VectorStore, ivf: IvfIndex, qs: QuerySet, nprobe: int, k: int) -> np.ndarray:
    """Each query's recall@k on the served path (IVF candidates, exact re-score) at `nprobe`."""
    assert qs.kth is not None
    extra = 0 if qs.own is None else 1
    found = ivf.batch_candidates(qs.vectors, k * OVERSAMPLE + extra, nprobe)
    hits = []
    for i, q in enumerate(qs.vectors):
        cand = found[i] if qs.own is None else found[i][found[i] != qs.own[i]]
        _, scores = rescore(store.mapped, cand, q, k)
        hits.append(np.count_nonzero(scores >= qs.kth[i] - TIE_EPS))
    return np.asarray(hits, dtype=np.float64) / k


def lower_bound(per_query: np.ndarray) -> float:
    """The mean recall less MARGIN_STDERR standard errors: what fresh queries will reach."""
    mean = float(np.mean(per_query))
    if len(per_query) < 2:
        return mean
    return mean - MARGIN_STDERR * float(np.std(per_query, ddof=1)) / math.sqrt(len(per_query))


def _median_ms(search: Callable[[np.ndarray], object], queries: np.ndarray) -> float:
    times = []
    for q in queries[:TIMED_QUERIES]:
        t = time.perf_counter()
        search(q)
        times.append(time.perf_counter() - t)
    return round(float(np.median(times)) * 1000, 3)


# One measured point of the probe ladder: {"nprobe", <query set>: mean recall, "<query set>_low":
# its lower bound, ..., "ms", "ok"}.
Step = dict[str, Any]


def choose_nprobe(
    measure: Callable[[int], Step], exact_ms: float, nlist: int, start: int = 1
) -> tuple[Step | None, str]:
    """Walk the probe ladder from `start`: double nprobe until a step is "ok" (every query set
    reached the target), then bisect down to within 1/8 of the last failing step. Returns the
    chosen step, or None and why exact search wins: a step no faster than an exact scan
    before the target was reached, or no setting reached it."""
    low, nprobe = start, start
    while True:
        step = measure(nprobe)
        if step["ms"] >= exact_ms:
            return None, (
                f"IVF at nprobe {nprobe} was no faster than an exact scan "
                f"({step['ms']} vs {exact_ms} ms)"
            )
        if step["ok"]:
            break
        if nprobe >= nlist:
            return None, "no IVF setting reached the target recall"
        low, nprobe = nprobe, min(nlist, nprobe * 2)
    high = step
    if high["nprobe"] == start:
        return high, ""
    while high["nprobe"] - low > max(1, low // 8):
        step = measure((low + high["nprobe"]) // 2)
        if step["ok"]:
            high = step
        else:
            low = step["nprobe"]
    return high, ""


def _choose(
    store: VectorStore, ivf: IvfIndex, sets: list[QuerySet], opts: AnnOptions
) -> dict[str, Any]:
    k, target = opts.k, opts.target_recall
    timed = sets[-1].vectors  # text queries when there are some: what users send
    exact_ms = _median_ms(lambda q: store.search(q, k, exact=True), timed)
    ladder: list[Step] = []

    def measure(nprobe: int) -> Step:
        step: Step = {"nprobe": nprobe}
        for qs in sets:
            per_query = _recall(store, ivf, qs, nprobe, k)
            step[qs.name] = round(float(np.mean(per_query)), 4)
            step[f"{qs.name}_low"] = round(lower_bound(per_query), 4)
        step["ms"] = _median_ms(lambda q: store.search(q, k, probe=nprobe), timed)
        step["ok"] = all(step[f"{qs.name}_low"] >= target for qs in sets)
        ladder.append(step)
        return step

    # Fewer lists than hold `want` candidates would fall back to an exact scan: start above.
    want = 2 * k * OVERSAMPLE * ivf.nlist / ivf.rows
    start = min(ivf.nlist, 2 ** max(0, math.ceil(math.log2(max(want, 1)))))
    limit = exact_ms if opts.compare_exact else math.inf
    chosen, why = choose_nprobe(measure, limit, ivf.nlist, start)
    latency: dict[str, float] = {"exact": exact_ms}
    measured: dict[str, Any] = {
        "k": k,
        "target_recall": target,
        "queries": {qs.name: len(qs.vectors) for qs in sets},
        "nlist": ivf.nlist,
        "oversample": OVERSAMPLE,
        "latency_ms": latency,
        "ladder": ladder,
    }
    if chosen is None:
        return exact_setting(ivf.rows, f"exact search: {why} for recall {target}", **measured)
    latency["ann"] = chosen["ms"]
    return {
        "kind": "faiss-ivf-sq8",
        "rows": ivf.rows,
        "nprobe": chosen["nprobe"],
        "recall": min(chosen[qs.name] for qs in sets),
        "recall_by_queries": {qs.name: chosen[qs.name] for qs in sets},
        "recall_lower_bound": min(chosen[f"{qs.name}_low"] for qs in sets),
        "resident_bytes": ivf.resident_bytes(),
        **measured,
    }


def describe_setting(setting: dict[str, Any] | None) -> str:
    """One line for `index build`: what a channel searches with and the recall it measured."""
    if not setting:
        return "exact search (no setting recorded)"
    if setting["kind"] == "exact":
        return str(setting["reason"])
    queries = " + ".join(f"{v} {name}" for name, v in setting["queries"].items())
    latency = setting["latency_ms"]
    return (
        f"IVF{setting['nlist']}-SQ8 nprobe {setting['nprobe']}: recall@{setting['k']} "
        f"{setting['recall']:.3f}, lower bound {setting.get('recall_lower_bound', '?')} "
        f"(target {setting['target_recall']}; {queries} queries); "
        f"{latency['ann']} ms vs exact {latency['exact']} ms at build"
    )
