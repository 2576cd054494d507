"""Recall as a property of an index: at build time, each vector channel measures recall@k of
its IVF index against exact search and picks the setting that reaches the target recall with
the least latency, then records the choice and the measurement (ann.json, and the manifest's
channel entry under "ann").

Queries come from the data itself: sampled rows searched as queries, with the row itself
excluded from both answers (held out), and, when the channel has a query embedder, text
windows of sampled rows' own texts (captions, passages) embedded as queries are, which is
what users send; then the user's query file (`--tune-queries`) or, without one, queries made
off the rows' manifold (far_queries.py), which rows and windows of their own texts flatter
the index against. Recall counts a returned row as correct when its exact score reaches the
k-th exact score (minus float rounding), so rows tied at the cut count either way.

A setting reaches the target only when its measured mean recall minus two standard errors
(over the queries) does: fresh queries land around the measured mean, so a setting chosen right
at the target misses it for about half of what users send (seen on a wide mixture at 1.76M
rows: 0.9505 at build, 0.944 on fresh queries). The recall recorded is that lower bound, the
least over the query sets, so it does not promise the mean of the kindest set.

The probe ladder doubles the fixed probe count until every query set reaches the target on
the path that serves it (the fixed lists, widened per query by the rule set for that count:
_choose), then bisects down. The ladder is walked on recall predicted from the lists each
step probes (coverage.py: no scan runs), and only its choice is measured on the served path,
raised by 1/8, 1/4, ... of it until a measured step reaches the target (choose_verified): at
1.76M rows of a wide mixture this cut the tuning from 416 s to 144 s with the same choices,
the prediction within 0.0003 of the measured recall. The measured step is timed against an
exact scan; where the exact scan is no slower, the channel searches exactly. Below `min_rows`
no index is built (exact search, recall 1.0 by construction), so small test indexes cost
nothing extra; above, the measurement costs about one exact scan per query plus the probes.

Filters are measured too, once the unfiltered setting is chosen: at each share of rows a
filter on the IVF path may keep (the smallest such share, then FILTER_SHARES), a random row
subset of that share, the exact top k among it, and the least budget factor (selected rows
scanned, relative to the unfiltered setting's scan; ann.py) that reaches the target by the
same lower bound, on every query set (the far ones too). The unfiltered budget alone kept
recall 0.73 for a 6.6% filter on tight clusters at 1.76M rows, where the unfiltered setting
probes only 2 lists.
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
from playscout.search.embedded import vectors
from playscout.search.embedded.ann import ADAPTIVE_RULE, ANN_FILE, AdaptiveRule, IvfIndex
from playscout.search.embedded.coverage import covered_recall, list_ranks
from playscout.search.embedded.far_queries import FAR_NAME, far_queries
from playscout.search.embedded.far_queries import describe as describe_far
from playscout.search.embedded.vectors import (
    META_FILE,
    OVERSAMPLE,
    MappedMatrix,
    Selection,
    VectorStore,
    rescore,
)

TIE_EPS = 1e-5  # scores within float rounding of the k-th exact score count as correct
TIMED_QUERIES = 15
MARGIN_STDERR = 2.0  # standard errors of the measured mean a setting must clear the target by
# A setting must also leave each query set's 5th percentile within this of the target: a mean
# at the target can hide a tail of far queries served badly (at 600K near-duplicate rows, the
# far queries' mean was 0.968 with the per-query rule at its cap, their p5 0.84).
P5_BELOW_TARGET = 0.10
GROUND_TRUTH_BLOCK = 65_536
LADDERS = ("ladder", "filtered_ladders")  # kept in ann.json, left out of the manifest
FILTER_SHARES = (0.05, 0.1, 0.3)  # a team, a season, three seasons of a sport
# Filtered budget factors are measured in steps of 1/BUDGET_STEPS from the least: at 1.76M
# real MiniLM rows factor 1 kept recall 0.998 for a 10% filter while probing 2,400 of 4,096
# lists (25 ms), far more than the target needed.
BUDGET_STEPS = 8

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
    filter_shares: tuple[float, ...] = FILTER_SHARES
    # False keeps the IVF index whenever a setting reaches the target, even where an exact
    # scan is as fast (small test indexes, benchmarks of the IVF path itself).
    compare_exact: bool = True
    # A user's own queries (`index build --tune-queries`): .npy vectors, or .txt with one
    # query a line embedded by each channel's query embedder; tuned on beside the others.
    tune_queries: Path | None = None
    # The least probe count the ladder starts from (`index tune`: the build's count, where the
    # build measured query sets a tune cannot measure again).
    min_nprobe: int = 1
    # Without a query file, tune on queries made off the rows' manifold too (far_queries.py).
    far_queries: bool = True

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
    source: str = ""  # what the queries are, for the record ("query_sources")
    kth: np.ndarray | None = None
    top: np.ndarray | None = None  # each query's exact top k rows (queries, k), -1 = none
    kth_filtered: np.ndarray | None = None  # the same among the rows of the filter measured
    top_filtered: np.ndarray | None = None
    ranks: np.ndarray | None = None  # each list's rank per query (coverage.list_ranks)
    # each query's group where the queries share something whose effect on recall varies
    # from group to group (the far queries' gap direction and band of distance): lower_bound
    # allows for it
    groups: np.ndarray | None = None


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
        qs.kth, qs.top = _exact_top(matrix.rows, qs, opts.k)
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
    return {key: value for key, value in setting.items() if key not in LADDERS}


def _query_sets(
    matrix: MappedMatrix, opts: AnnOptions, texts: RowTexts | None, embedder: QueryEmbedder | None
) -> list[QuerySet]:
    """The queries a channel is tuned on: sampled rows (they find their own near-copies and
    sit where the lists are, so they flatter the index), windows of rows' own texts embedded
    as queries are, and the user's query file, or without one queries made off the rows
    (far_queries.py); a setting must satisfy each."""
    n, dim = matrix.rows.shape
    rng = np.random.default_rng(opts.seed + 1)
    own = np.sort(rng.choice(n, size=min(n, opts.queries), replace=False))
    sets = [
        QuerySet(
            "data",
            np.ascontiguousarray(matrix.rows[own]),
            own,
            f"{len(own)} sampled rows, each excluding its own row",
        )
    ]
    if texts is not None and embedder is not None:
        rows = np.sort(rng.choice(n, size=min(n, opts.queries), replace=False))
        windows = [w for w in (_window(t, rng) for t in texts(rows.tolist())) if w]
        if windows:
            vectors = np.asarray(embedder.embed_queries(windows), dtype=np.float32)
            sets.append(
                QuerySet(
                    "text",
                    np.ascontiguousarray(vectors),
                    None,
                    f"{len(windows)} 4-12 word windows of rows' texts, embedded by "
                    f"{_embedder_name(embedder)}",
                )
            )
    if opts.tune_queries is not None:
        user = user_queries(opts.tune_queries, dim, embedder, opts.queries, rng)
        if user is not None:
            sets.append(user)
    elif opts.far_queries:
        far_rng = np.random.default_rng(opts.seed + 4)
        rows = np.sort(far_rng.choice(n, size=min(n, opts.queries), replace=False))
        vectors, groups = far_queries(matrix.rows[rows], far_rng)
        sets.append(QuerySet(FAR_NAME, vectors, None, describe_far(len(rows)), groups=groups))
    return sets


def _embedder_name(embedder: QueryEmbedder) -> str:
    spec = getattr(embedder, "spec", None)
    made = spec() if callable(spec) else None
    model = made.get("model") if isinstance(made, dict) else getattr(made, "model", None)
    return str(model or type(embedder).__name__)


def check_tune_queries(path: Path) -> None:
    """Refuse a query file `user_queries` cannot read, before a build spends minutes."""
    if path.suffix not in (".npy", ".txt"):
        raise ValueError(f"--tune-queries {path}: expected a .npy or .txt file")
    if not path.is_file():
        raise ValueError(f"--tune-queries {path}: no such file")


def user_queries(
    path: Path,
    dim: int,
    embedder: QueryEmbedder | None,
    limit: int,
    rng: np.random.Generator,
) -> QuerySet | None:
    """The user's query file as a query set ("file"), up to `limit` of its queries drawn at
    random: a .npy matrix of query vectors is used where its width is the channel's, a .txt
    file (one query a line) where the channel has a query embedder; None elsewhere (a file of
    text queries says nothing about a channel that cannot embed them)."""
    check_tune_queries(path)
    if path.suffix == ".npy":
        vectors = np.load(path)
        if vectors.ndim != 2 or vectors.shape[0] == 0:
            raise ValueError(f"--tune-queries {path}: expected a (queries, dim) matrix")
        if vectors.shape[1] != dim:
            return None
        what = f"{path.name}: {{}} of {len(vectors)} query vectors"
    else:
        lines = [x.strip() for x in path.read_text().splitlines() if x.strip()]
        if not lines:
            raise ValueError(f"--tune-queries {path}: no queries in the file")
        if embedder is None:
            return None
        what = f"{path.name}: {{}} of {len(lines)} queries, embedded by {_embedder_name(embedder)}"
    total = len(vectors) if path.suffix == ".npy" else len(lines)
    pick = np.sort(rng.choice(total, size=min(total, limit), replace=False))
    if path.suffix == ".txt":
        vectors = np.asarray(embedder.embed_queries([lines[i] for i in pick]))  # type: ignore[union-attr]
    else:
        vectors = vectors[pick]
    return QuerySet(
        "file",
        np.ascontiguousarray(vectors, dtype=np.float32),
        None,
        what.format(len(pick)),
    )


def _window(text: str, rng: np.random.Generator) -> str:
    """A query-sized run of 4-12 words from a row's text."""
    words = text.split()
    if not words:
        return ""
    size = int(rng.integers(4, 13))
    start = int(rng.integers(0, max(1, len(words) - size + 1)))
    return " ".join(words[start : start + size])


def _exact_top(
    matrix: np.ndarray, qs: QuerySet, k: int, rows: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Each query's k-th best exact score over `rows` (sorted; None = all) but its own row,
    and its top k rows (queries, k), one pass over the rows."""
    m = len(qs.vectors)
    best = np.full((k, m), -np.inf, dtype=np.float32)
    best_ids = np.full((k, m), -1, dtype=np.int64)
    qt = qs.vectors.T
    total = len(matrix) if rows is None else len(rows)
    for start in range(0, total, GROUND_TRUTH_BLOCK):
        stop = min(total, start + GROUND_TRUTH_BLOCK)
        ids = np.arange(start, stop) if rows is None else rows[start:stop]
        block = (np.asarray(matrix[start:stop]) if rows is None else matrix[ids]) @ qt
        if qs.own is not None:
            at = np.minimum(np.searchsorted(ids, qs.own), len(ids) - 1)
            inside = ids[at] == qs.own
            block[at[inside], np.flatnonzero(inside)] = -np.inf
        both = np.concatenate([best, block])
        both_ids = np.concatenate([best_ids, np.broadcast_to(ids[:, None], block.shape)])
        take = min(k, len(both))
        keep = np.argpartition(-both, take - 1, axis=0)[:take]
        best = np.take_along_axis(both, keep, axis=0)
        best_ids = np.take_along_axis(both_ids, keep, axis=0)
    best_ids[~np.isfinite(best)] = -1
    return best.min(axis=0), np.ascontiguousarray(best_ids.T)


def _recall(
    store: VectorStore,
    ivf: IvfIndex,
    qs: QuerySet,
    nprobe: int,
    k: int,
    filtered: tuple[Selection, float] | None = None,
    adaptive: AdaptiveRule | None = None,
    probes: list[int] | None = None,
) -> np.ndarray:
    """Each query's recall@k on the served path (IVF candidates, exact re-score) at `nprobe`,
    among all rows or, `filtered`, among a selection at a budget factor, or under the
    per-query rule `adaptive` (depth, least, most, relative; the lists each query probed are appended
    to `probes`)."""
    kth = qs.kth if filtered is None else qs.kth_filtered
    assert kth is not None
    want = _wanted(qs, k)
    if adaptive is not None:
        found, probed = ivf.adaptive_candidates(qs.vectors, want, *adaptive)
        if probes is not None:
            probes.extend(probed.tolist())
    elif filtered is None:
        found = ivf.batch_candidates(qs.vectors, want, nprobe)
        if probes is not None:
            probes.extend([nprobe] * len(qs.vectors))
    else:
        sel, factor = filtered
        found = ivf.filtered_candidates(qs.vectors, want, nprobe, sel.counts, sel.selector, factor)
    hits = []
    for i, q in enumerate(qs.vectors):
        cand = found[i] if qs.own is None else found[i][found[i] != qs.own[i]]
        _, scores = rescore(store.mapped, cand, q, k)
        hits.append(np.count_nonzero(scores >= kth[i] - TIE_EPS))
    return np.asarray(hits, dtype=np.float64) / k


def _wanted(qs: QuerySet, k: int) -> int:
    """Candidates a tuning query asks the IVF path for: the served path's, and one more where
    its own row is dropped from them."""
    return k * OVERSAMPLE + (0 if qs.own is None else 1)


def _predicted(
    ivf: IvfIndex,
    qs: QuerySet,
    nprobe: int,
    k: int,
    filtered: tuple[Selection, float] | None = None,
    adaptive: AdaptiveRule | None = None,
    probes: list[int] | None = None,
) -> np.ndarray:
    """Each query's recall@k on the path _recall measures, predicted from the lists that path
    probes (coverage.py): no scan runs, and the served path can only do worse."""
    top = qs.top if filtered is None else qs.top_filtered
    assert top is not None
    if qs.ranks is None:
        qs.ranks = list_ranks(ivf, qs.vectors)
    if filtered is not None:
        sel, factor = filtered
        lists = ivf.filtered_probes(qs.vectors, nprobe, sel.counts, factor, _wanted(qs, k))[0]
        return covered_recall(ivf, qs.ranks, top, lists)
    if adaptive is not None:
        counts = np.count_nonzero(ivf.adaptive_probes(qs.vectors, *adaptive)[0] >= 0, axis=1)
    else:
        counts = np.full(len(qs.vectors), min(nprobe, ivf.nlist))
    if probes is not None:
        probes.extend(counts.tolist())
    return covered_recall(ivf, qs.ranks, top, counts)


def lower_bound(per_query: np.ndarray, groups: np.ndarray | None = None) -> float:
    """The mean recall less MARGIN_STDERR standard errors: what fresh queries will reach.
    With `groups`, what fresh queries of one group not seen (one gap at one distance) reach:
    the mean less MARGIN_STDERR times the spread of a group's mean about it, the between-group
    variance (of the group means, less what their own sampling error explains) added to the
    mean's. On far queries at 600K near-duplicate rows under a 5% filter, 16 directions' means
    spread by 0.008 where sampling error alone explained 0.0057."""
    mean = float(np.mean(per_query))
    if len(per_query) < 2:
        return mean
    var = float(np.var(per_query, ddof=1)) / len(per_query)
    if groups is not None:
        labels, sizes = np.unique(groups, return_counts=True)
        if len(labels) > 1 and sizes.min() > 1:
            means = np.array([per_query[groups == g].mean() for g in labels])
            within = np.mean([np.var(per_query[groups == g], ddof=1) for g in labels])
            var += max(0.0, float(np.var(means, ddof=1)) - within / float(np.mean(sizes)))
    return mean - MARGIN_STDERR * math.sqrt(var)


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
    measure: Callable[[int], Step],
    exact_ms: float,
    nlist: int,
    start: int = 1,
    knob: str = "nprobe",
) -> tuple[Step | None, str]:
    """Walk the ladder of a knob (nprobe, or a filtered budget in BUDGET_STEPS units) from
    `start` up to `nlist`: double it until a step is "ok" (every query set reached the
    target), then bisect down to within 1/8 of the last failing step. Returns the chosen
    step, or None and why exact search wins: a step no faster than an exact scan before the
    target was reached, or no setting reached it."""
    low, value = start, start
    while True:
        step = measure(value)
        if _no_faster(step, exact_ms):
            return None, _slower(step, knob, exact_ms)
        if step["ok"]:
            break
        if value >= nlist:
            return None, "no IVF setting reached the target recall"
        low, value = value, min(nlist, value * 2)
    high, high_value = step, value
    if high_value == start:
        return high, ""
    while high_value - low > max(1, low // 8):
        mid = (low + high_value) // 2
        step = measure(mid)
        if step["ok"]:
            high, high_value = step, mid
        else:
            low = mid
    return high, ""


def _no_faster(step: Step, exact_ms: float) -> bool:
    return "ms" in step and step["ms"] >= exact_ms


def _slower(step: Step, knob: str, exact_ms: float) -> str:
    return (
        f"IVF at {knob} {step[knob]} was no faster than an exact scan "
        f"({step['ms']} vs {exact_ms} ms)"
    )


def choose_verified(
    predict: Callable[[int], Step],
    measure: Callable[[int], Step],
    exact_ms: float,
    nlist: int,
    start: int = 1,
    knob: str = "nprobe",
) -> tuple[Step | None, str]:
    """choose_nprobe's ladder walked on predicted recall (`predict`: no scan runs), then its
    choice measured on the served path (`measure`) and taken where that reaches the target;
    where it does not, the knob is raised by 1/8 of it, then 1/4, 1/2, ... until a measured
    step does. A measured step no faster than an exact scan ends it as in choose_nprobe (the
    lower steps it skipped are faster, and would have failed the target)."""
    at: dict[int, int] = {}

    def walk(value: int) -> Step:
        step = predict(value)
        at[id(step)] = value
        return step

    guess, _ = choose_nprobe(walk, math.inf, nlist, start, knob)
    value = nlist if guess is None else at[id(guess)]
    grain = max(1, value // 8)
    while True:
        step = measure(value)
        if _no_faster(step, exact_ms):
            return None, _slower(step, knob, exact_ms)
        if step["ok"]:
            return step, ""
        if value >= nlist:
            return None, "no IVF setting reached the target recall"
        value, grain = min(nlist, value + grain), grain * 2


def _timed_set(sets: list[QuerySet]) -> QuerySet:
    """The queries a setting is timed on (and compared with an exact scan by): what users
    send where the build has a sample of it (their file, rows' text windows), else rows. Not
    the queries made off the rows: they stand in for users' queries' recall, and the rule
    probes up to ADAPTIVE_MOST times the lists for them, so timing on them alone would choose
    an exact scan for every query where only the farthest pay that much."""
    by_name = {qs.name: qs for qs in sets}
    return next(by_name[n] for n in ("file", "text", "data") if n in by_name)


def _choose(
    store: VectorStore, ivf: IvfIndex, sets: list[QuerySet], opts: AnnOptions
) -> dict[str, Any]:
    """The least fixed probe count at which every query set reaches the target on the path
    that serves it: the fixed lists, widened per query by the rule (adaptive_rule) set for
    that count, so queries far from every centroid are carried by the rule where it reaches
    them and raise the count for everyone only where it does not."""
    k, target = opts.k, opts.target_recall
    timed = _timed_set(sets).vectors
    data = next(qs for qs in sets if qs.name == "data")
    exact_ms = _median_ms(lambda q: store.search(q, k, exact=True), timed)
    ladder: list[Step] = []
    rules: dict[int, AdaptiveRule] = {}

    def step_at(nprobe: int, predicted: bool) -> Step:
        if nprobe not in rules:
            rules[nprobe] = adaptive_rule(ivf, data.vectors, nprobe)
        rule = rules[nprobe]
        knobs = {"nprobe": nprobe, "depth": rule[0]}
        step = _step(store, ivf, sets, opts, knobs, nprobe, rule, predicted=predicted)
        if not predicted:
            step["ms"] = _served_ms(store, ivf, step, timed, k)
        ladder.append(step)
        return step

    # Fewer lists than hold `want` candidates would fall back to an exact scan: start above.
    want = 2 * k * OVERSAMPLE * ivf.nlist / ivf.rows
    start = min(ivf.nlist, max(opts.min_nprobe, 2 ** max(0, math.ceil(math.log2(max(want, 1))))))
    limit = exact_ms if opts.compare_exact else math.inf
    chosen, why = choose_verified(
        lambda p: step_at(p, True), lambda p: step_at(p, False), limit, ivf.nlist, start
    )
    latency: dict[str, float] = {"exact": exact_ms}
    measured: dict[str, Any] = {
        "k": k,
        "target_recall": target,
        "queries": {qs.name: len(qs.vectors) for qs in sets},
        "query_sources": {qs.name: qs.source for qs in sets},
        "nlist": ivf.nlist,
        "oversample": OVERSAMPLE,
        "latency_ms": latency,
        "ladder": ladder,
    }
    if chosen is None:
        return exact_setting(ivf.rows, f"exact search: {why} for recall {target}", **measured)
    latency["ann"] = chosen["ms"]
    far = next((qs for qs in sets if qs.name == FAR_NAME), None)
    if far is not None:  # for the record: what the farthest queries pay on the served path
        latency[FAR_NAME] = _served_ms(store, ivf, chosen, far.vectors, k)
    started = time.perf_counter()
    filtered, filtered_ladders = _choose_filtered(store, ivf, sets, opts, chosen["nprobe"])
    measured["filtered_seconds"] = round(time.perf_counter() - started, 3)
    # the query set that set the probe count: the one with the lowest lower bound
    limited_by = min(sets, key=lambda qs: chosen[f"{qs.name}_low"])
    least_low = chosen[f"{limited_by.name}_low"]
    return {
        "kind": "faiss-ivf-sq8",
        "rows": ivf.rows,
        "nprobe": chosen["nprobe"],
        # the estimate for queries the build did not see: each query set's mean on the
        # served path less its sampling error, the least over the sets (a kind of query
        # the rows flatter cannot lift it)
        "recall": least_low,
        "recall_by_queries": {qs.name: chosen[qs.name] for qs in sets},
        "recall_p5": {qs.name: chosen[f"{qs.name}_p5"] for qs in sets},
        "recall_lower_bound": least_low,
        "limited_by": limited_by.name,
        "resident_bytes": ivf.resident_bytes(),
        "adaptive": _adaptive_entry(ivf, sets, chosen),
        "filtered": filtered,
        **measured,
        "filtered_ladders": filtered_ladders,
    }


def _served_ms(store: VectorStore, ivf: IvfIndex, step: Step, queries: np.ndarray, k: int) -> float:
    """Median ms of unfiltered searches on the path a ladder step serves (its fixed count,
    widened by its rule where the rule has a depth)."""
    nprobe, depth = int(step["nprobe"]), int(step["depth"])
    rule = (depth, nprobe, _most(ivf, nprobe), False) if depth else None
    saved = store.nprobe, store.adaptive
    store.nprobe, store.adaptive = nprobe, rule
    try:
        return _median_ms(lambda q: store.search(q, k), queries)
    finally:
        store.nprobe, store.adaptive = saved


ADAPTIVE_DEPTHS = 4000  # depth: thousandths of similarity below s1 (2000: every list)
# The rule probes at most this many times the fixed setting's lists: at 8, queries off the
# rows' manifold at 600K near-duplicate rows all stopped at the cap (64 of 4,096 lists).
ADAPTIVE_MOST = 16
DATA_AT_FIXED = 0.9  # share of data-row queries the rule must leave at the fixed count


def adaptive_depth(ivf: IvfIndex, queries: np.ndarray, nprobe: int, most: int) -> int:
    """The deepest rule under which DATA_AT_FIXED of `queries` (data rows) still probe only
    the fixed `nprobe` lists: queries like the data then search exactly as before, and
    those whose centroid similarities are lower and flatter than the data's probe more."""
    low, high = 0, ADAPTIVE_DEPTHS
    while low < high:
        depth = (low + high + 1) // 2
        counts = (ivf.adaptive_probes(queries, depth, nprobe, most)[0] >= 0).sum(axis=1)
        if np.mean(counts <= nprobe) >= DATA_AT_FIXED:
            low = depth
        else:
            high = depth - 1
    return low


def adaptive_rule(ivf: IvfIndex, data: np.ndarray, nprobe: int) -> AdaptiveRule:
    """The per-query probe rule (ann.IvfIndex.adaptive_probes) served on top of the fixed
    count `nprobe`: every query probes at least the fixed lists, and those far from every
    centroid more, up to ADAPTIVE_MOST times as many. Its depth is set by the data rows'
    centroid similarities alone (adaptive_depth), so queries like the data search exactly as
    before; depth 0 (no depth leaves them there) serves the fixed lists to every query."""
    most = _most(ivf, nprobe)
    return (adaptive_depth(ivf, data, nprobe, most), nprobe, most, False)


def _most(ivf: IvfIndex, nprobe: int) -> int:
    return min(ivf.nlist, ADAPTIVE_MOST * nprobe)


def _adaptive_entry(ivf: IvfIndex, sets: list[QuerySet], step: Step) -> dict[str, Any]:
    """The record of the rule served with the chosen count: its recall, p5 and lists probed
    on every query set, as the chosen step measured them."""
    depth, nprobe = int(step["depth"]), int(step["nprobe"])
    entry: dict[str, Any] = {
        "rule": ADAPTIVE_RULE,
        "depth": depth,
        "least": nprobe,
        "most": _most(ivf, nprobe),
        "recall_by_queries": {qs.name: step[qs.name] for qs in sets},
        "recall_p5": {qs.name: step[f"{qs.name}_p5"] for qs in sets},
        "recall_lower_bound": min(step[f"{qs.name}_low"] for qs in sets),
        "probes_median": {qs.name: step[f"{qs.name}_probes"] for qs in sets},
        "probes_p90": {qs.name: step[f"{qs.name}_probes_p90"] for qs in sets},
        "ms": step["ms"],
        # depth 0 probes the fixed lists for every query: nothing to serve
        "chosen": depth > 0,
    }
    if not depth:
        entry["reason"] = "no depth leaves the data rows at the fixed count"
    return entry


def filter_shares(rows: int, shares: Sequence[float]) -> list[float]:
    """The shares of the rows at which filtered search is measured: the smallest share a
    filter on the IVF path can keep (smaller ones are searched exactly), then each configured
    share clearly above it (not one within a quarter of it: 4.7% and 5% measure the same)."""
    smallest = math.ceil((vectors.EXACT_MAX_ROWS + 1) / rows * 10_000) / 10_000
    if smallest >= 1:
        return []
    return [smallest] + [s for s in sorted(shares) if s > smallest * 1.25]


def _step(
    store: VectorStore,
    ivf: IvfIndex,
    sets: list[QuerySet],
    opts: AnnOptions,
    step: Step,
    nprobe: int,
    adaptive: AdaptiveRule | None = None,
    filtered: tuple[Selection, float] | None = None,
    predicted: bool = False,
) -> Step:
    """Fill one ladder step with each query set's mean recall, its lower bound and p5 (and,
    unfiltered, the lists its queries probed), and whether every set clears the target (its
    lower bound) and P5_BELOW_TARGET under it (its p5).
    `adaptive` (a rule of depth > 0) serves the unfiltered queries through the rule;
    `predicted`: recall predicted from the lists probed (_predicted), not measured."""
    rule = adaptive if adaptive is not None and adaptive[0] > 0 else None
    step["ok"] = True
    if predicted:
        step["predicted"] = True
    for qs in sets:
        probes: list[int] = []
        per_query = (
            _predicted(ivf, qs, nprobe, opts.k, filtered, rule, probes)
            if predicted
            else _recall(store, ivf, qs, nprobe, opts.k, filtered, rule, probes)
        )
        low, tail = lower_bound(per_query, qs.groups), float(np.percentile(per_query, 5))
        step[qs.name] = round(float(np.mean(per_query)), 4)
        step[f"{qs.name}_low"] = round(low, 4)
        step[f"{qs.name}_p5"] = round(tail, 4)
        if probes:
            step[f"{qs.name}_probes"] = int(np.median(probes))
            step[f"{qs.name}_probes_p90"] = int(np.quantile(probes, 0.9))
        step["ok"] = step["ok"] and _meets(low, tail, opts.target_recall)
    return step


def reaches(per_query: np.ndarray, target: float, groups: np.ndarray | None = None) -> bool:
    """Whether a query set's recalls reach the target: their lower bound does, and their
    5th percentile is at most P5_BELOW_TARGET under it."""
    return _meets(lower_bound(per_query, groups), float(np.percentile(per_query, 5)), target)


def _meets(low: float, tail: float, target: float) -> bool:
    return low >= target and tail >= target - P5_BELOW_TARGET


def _choose_filtered(
    store: VectorStore, ivf: IvfIndex, sets: list[QuerySet], opts: AnnOptions, nprobe: int
) -> tuple[list[dict[str, Any]], dict[str, list[Step]]]:
    """Per share of rows a filter may keep, the least budget factor (selected rows scanned,
    relative to what the unfiltered setting scans) at which filtered search reaches the
    target, measured on a random row subset of that share against exact search among it;
    budget factor 0 where no factor beats an exact scan of the subset."""
    rng = np.random.default_rng(opts.seed + 2)
    chosen: list[dict[str, Any]] = []
    ladders: dict[str, list[Step]] = {}
    for share in filter_shares(ivf.rows, opts.filter_shares):
        subset = np.sort(rng.choice(ivf.rows, size=int(share * ivf.rows), replace=False))
        entry, ladders[str(share)] = _choose_budget(store, ivf, sets, opts, nprobe, subset)
        chosen.append({"share": share, **entry})
    return chosen, ladders


def _choose_budget(
    store: VectorStore,
    ivf: IvfIndex,
    sets: list[QuerySet],
    opts: AnnOptions,
    nprobe: int,
    subset: np.ndarray,
) -> tuple[dict[str, Any], list[Step]]:
    """The budget factor chosen for one row subset, and the ladder that chose it."""
    k = opts.k
    sel = Selection(ivf, subset, ivf.rows)
    for qs in sets:
        qs.kth_filtered, qs.top_filtered = _exact_top(store.matrix, qs, k, subset)
    timed = _timed_set(sets).vectors
    exact_ms = _median_ms(lambda q: store.search(q, k, subset, exact=True), timed)
    ladder: list[Step] = []

    def step_at(steps: int, predicted: bool) -> Step:
        factor = steps / BUDGET_STEPS
        knobs = {"budget_factor": factor}
        step = _step(
            store, ivf, sets, opts, knobs, nprobe, filtered=(sel, factor), predicted=predicted
        )
        if not predicted:
            step["ms"] = _median_ms(
                lambda q: store.search(q, k, subset, probe=nprobe, budget_factor=factor), timed
            )
        ladder.append(step)
        return step

    # the factor that scans every selected row
    most = BUDGET_STEPS * max(1, math.ceil(len(subset) / ivf.rows * ivf.nlist / nprobe))
    limit = exact_ms if opts.compare_exact else math.inf
    step, why = choose_verified(
        lambda s: step_at(s, True), lambda s: step_at(s, False), limit, most, knob="budget_factor"
    )
    entry: dict[str, Any] = {"rows": len(subset), "exact_ms": exact_ms}
    if step is None:
        entry.update(budget_factor=0, reason=f"exact search: {why}")
    else:
        least_low = min(step[f"{qs.name}_low"] for qs in sets)
        entry.update(
            budget_factor=step["budget_factor"],
            recall=least_low,  # as unfiltered (_choose)
            recall_by_queries={qs.name: step[qs.name] for qs in sets},
            recall_lower_bound=least_low,
            ms=step["ms"],
        )
    return entry, ladder


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
        f"{setting['recall']:.3f} (target {setting['target_recall']}; {queries} queries"
        f"{', limited by ' + setting['limited_by'] if 'limited_by' in setting else ''}); "
        f"{latency['ann']} ms vs exact {latency['exact']} ms at build"
        f"{_describe_adaptive(setting)}{_describe_filters(setting)}"
    )


def _describe_adaptive(setting: dict[str, Any]) -> str:
    """'; per-query probes (depth 120): median 96 data, 300 text lists, recall 0.962'."""
    rule = setting.get("adaptive")
    if not rule:
        return ""
    if not rule["chosen"]:
        return f"; per-query probes not used: {rule['reason']}"
    probes = ", ".join(f"{v} {name}" for name, v in rule["probes_median"].items())
    recall = min(rule["recall_by_queries"].values())
    return f"; per-query probes (depth {rule['depth']}): median {probes} lists, recall {recall:.3f}"


def _describe_filters(setting: dict[str, Any]) -> str:
    """'; filters keeping 2.3% budget x4 (recall 0.970), ..., 30.0% exact'."""
    parts = []
    for f in setting.get("filtered", []):
        how = (
            f"budget x{f['budget_factor']} (recall {f['recall']:.3f})"
            if f["budget_factor"]
            else "exact"
        )
        parts.append(f"{f['share']:.1%} {how}")
    return "; filters keeping " + ", ".join(parts) if parts else ""
