"""Scale benchmark of the embedded search backend's vector search, on several distributions.

    python benchmarks/search.py --clips 200000
        [--dists mixture,medium,dup,wide,uniform,minilm,minilm-ivf,minilm-x,docs]
        [--passages 123000] [--queries 200] [--real-rows 104448] [--tune-set gap]

Each distribution runs in its own process (so its peak RSS is its own): build an index of
--clips clips (benchmarks/search_data.py says what the data is), then, on the same queries,
time and compare the ANN path with an exact scan in the same run: unfiltered, one game (exact
by design: no ratio is printed), team + period, two teams, one season, three seasons;
recall@100 against exact (clip-id sets, and counting ties at the 100th score); the vector core
alone; and the same unfiltered queries after evicting the index files from the page cache
(posix_fadvise DONTNEED, checked with mincore), with and without the re-score prefetch.
The `docs` part times hybrid document search including the live MiniLM query embedding.

Per query set (the mixtures' "fresh", "gap", "shift" and "gap2"; the real sets' "fresh" held-out
captions and "questions", the corpus's T9 questions; search_data.py), the vector core's
recall@100 mean and p5, p50/p99 ms and lists probed on the served path (the per-query probe
rule when the build chose it) beside the fixed probe count and an exact scan, in the same run.
`--tune-set gap` builds with a sample of another draw of that set as the user's query file
(`index build --tune-queries`); the sets measured are never the ones tuned on.

The real sets need a generated corpus (`playscout corpus synth --out var/corpus-real --games
600`: 135K non-empty captions, of which --real-rows are used, and 13.5K passages; then
`playscout corpus questions var/corpus-real --per-sport 200` for the questions set); their
MiniLM vectors are computed on first use and cached under var/minilm-cache (resumable; about
40 minutes for 100K captions on an idle 2-core machine in fp32; 17 minutes for 104,448 with
bf16 products in two streams, partly beside a test run;
they are ~90 tokens long).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import gc
import json
import mmap
import os
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from search_data import (
    SPORT,
    TEAMS,
    LookupQueries,
    Mixture,
    NearDuplicates,
    RealMiniLM,
    TextVisualSource,
    Uniform,
    Vectors,
    VisualSource,
    corpus_questions,
    game_meta,
    gen_clips,
    load_real,
    num_games,
    season_games,
)

from playscout.search.backend_api import ClipFilter
from playscout.search.embedded import vectors as vec
from playscout.search.embedded.build import AnnOptions, SportSource, build_index, open_index
from playscout.search.embedded.recall import TIE_EPS

ROOT = Path(__file__).resolve().parents[1]
DISTS = ("mixture", "medium", "dup", "wide", "uniform", "minilm", "minilm-ivf", "minilm-x")
# The un-replicated real set is smaller than the build's ANN threshold, so the product searches
# it exactly; "minilm-ivf" builds the IVF index over it anyway (the IVF path's own recall).
FORCED_IVF = AnnOptions(min_rows=10_000, compare_exact=False)


def rss_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6


def load() -> str:
    return Path("/proc/loadavg").read_text().split(" ", 3)[:3].__str__()


def pct(xs: Sequence[float], p: float) -> float:
    return round(float(np.percentile(np.asarray(xs) * 1000, p)), 2)


def timed(fn: Callable[[Any], Any], args: Sequence[Any]) -> tuple[list[float], list[Any]]:
    times, outs = [], []
    for a in args:
        t = time.perf_counter()
        outs.append(fn(a))
        times.append(time.perf_counter() - t)
    return times, outs


def recalls(ann: list[Any], exact: list[Any]) -> dict[str, float]:
    """Mean recall of ANN hit lists against exact ones: by clip id, and counting a hit whose
    score reaches the exact k-th score (ties at the cut either way)."""
    by_id, by_score = [], []
    for a, e in zip(ann, exact, strict=True):
        if not e:
            continue
        kth = e[-1].score
        by_id.append(len({h.clip_id for h in a} & {h.clip_id for h in e}) / len(e))
        by_score.append(sum(h.score >= kth - TIE_EPS for h in a) / len(e))
    return {"recall_ids": round(float(np.mean(by_id)), 4), "recall": round(np.mean(by_score), 4)}


# -- page cache ---------------------------------------------------------------------------
def resident_share(path: Path) -> float:
    """Share of a file's bytes in the page cache (util-linux fincore, which calls mincore)."""
    out = subprocess.run(
        ["fincore", "--bytes", "--noheadings", "--raw", "--output", "RES,SIZE", str(path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return int(out[0]) / max(1, int(out[1]))


def evict(root: Path) -> float:
    """Drop every file under root from the page cache (posix_fadvise DONTNEED: only this
    index, not the shared machine's cache); returns the largest resident share left among
    the vector files (0 = fully evicted). Pages still mapped by a process stay, so callers
    close the index first."""
    for p in root.rglob("*"):
        if p.is_file():
            fd = os.open(p, os.O_RDONLY)
            os.fsync(fd)  # dirty pages (a fresh build) cannot be dropped
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            os.close(fd)
    return round(max((resident_share(p) for p in root.rglob("vectors.npy")), default=0.0), 4)


# -- one distribution -----------------------------------------------------------------------
def make_vectors(name: str, clips: int, real: tuple[np.ndarray, list[str]] | None) -> Vectors:
    if name in ("mixture", "wide", "medium"):
        return Mixture({"mixture": 0.9, "medium": 1.3, "wide": 2.0}[name], name=name)
    if name == "dup":
        return NearDuplicates(1.3)
    if name == "uniform":
        return Uniform()
    assert real is not None, "the real sets need var/minilm-captions (see the docstring)"
    vectors = RealMiniLM(*real, rows=clips if name == "minilm-x" else None)
    if name == "minilm-ivf":
        vectors.name, vectors.description = name, vectors.description + ", IVF forced"
    return vectors


def build(
    base: Path, vectors: Vectors, clips: int, minilm: Any, ann: AnnOptions | None = None
) -> dict[str, Any]:
    progress_at: dict[str, int] = {}

    def progress(stage: str, done: int, total: int | None) -> None:
        if done // 500_000 != progress_at.get(stage, -1):
            progress_at[stage] = done // 500_000
            print(f"  .. {stage} {done} rss {rss_gb():.2f} GB", file=sys.stderr, flush=True)

    source = TextVisualSource(vectors, minilm) if minilm else VisualSource(vectors)
    t0 = time.perf_counter()
    summary = build_index(
        base,
        [SportSource(SPORT, [], gen_clips(clips, vectors.captions))],
        doc_embedder=None,
        caption_embedder=None,
        visual_vectors=source,
        progress=progress,
        overwrite=True,
        ann=ann,
    )
    info = summary.sports[SPORT]
    return {
        "build_s": round(time.perf_counter() - t0, 1),
        "build_peak_rss_gb": round(rss_gb(), 2),
        "index_gb": round(summary.size_bytes / 1e9, 2),
        "ann": info["channels"]["visual"]["ann"],
    }


def reused(base: Path) -> dict[str, Any]:
    """build()'s record of an index an earlier run kept (--keep), read from its manifest."""
    manifest = json.loads((base / "manifest.json").read_text())
    size = sum(p.stat().st_size for p in base.rglob("*") if p.is_file())
    return {
        "build_s": manifest.get("build_seconds"),
        "build_peak_rss_gb": "-",
        "index_gb": round(size / 1e9, 2),
        "ann": manifest["sports"][SPORT]["channels"]["visual"]["ann"],
        "reused": str(base),
    }


def filters(clips: int, count: int) -> dict[str, list[ClipFilter | None]]:
    """Per kind, one filter per query (the game/team/season varies with the query)."""
    games = num_games(clips)
    rng = np.random.default_rng(7)
    out: dict[str, list[ClipFilter | None]] = {"unfiltered": [None] * count}
    out["one game"] = [
        ClipFilter(game_ids=[game_meta(int(g), games)[0]]) for g in rng.integers(0, games, count)
    ]
    out["team + period"] = [
        ClipFilter(teams=[TEAMS[int(t)]], periods=[int(p)])
        for t, p in zip(rng.integers(0, 30, count), rng.integers(1, 5, count), strict=True)
    ]
    out["two teams"] = [
        ClipFilter(teams=[TEAMS[int(t)], TEAMS[(int(t) + 1) % 30]])
        for t in rng.integers(0, 30, count)
    ]
    seasons = [season_games(2015 + s, games) for s in range(10)]
    out["one season"] = [ClipFilter(game_ids=seasons[int(s)]) for s in rng.integers(0, 10, count)]
    out["three seasons"] = [
        ClipFilter(game_ids=[g for x in seasons[int(s) : int(s) + 3] for g in x])
        for s in rng.integers(0, 8, count)
    ]
    return out


def set_nice(value: int) -> None:
    """Every thread's nice value (Linux keeps one per thread; the BLAS and OpenMP pools'
    threads would otherwise keep the build's)."""
    for task in os.listdir("/proc/self/task"):
        with contextlib.suppress(ProcessLookupError):
            os.setpriority(os.PRIO_PROCESS, int(task), value)


@contextlib.contextmanager
def niced(step: int) -> Iterator[None]:
    """Build at a lower priority on a shared machine, then time at the usual one (raising the
    priority back needs root or CAP_SYS_NICE; without it the measurements stay niced, said on
    stderr)."""
    before = os.getpriority(os.PRIO_PROCESS, 0)
    if step:
        set_nice(before + step)
    try:
        yield
    finally:
        try:
            set_nice(before)
        except PermissionError:
            print(f"  .. could not restore priority {before}: timings are niced", file=sys.stderr)


def run_one(args: argparse.Namespace) -> dict[str, Any]:
    name, clips = args.one, args.clips
    if args.exact_max_rows is not None:
        vec.EXACT_MAX_ROWS = args.exact_max_rows  # read at build (recall.py) and at search
    minilm = None
    real = None
    if name.startswith("minilm"):
        from playscout.embed import MiniLMEmbedder

        minilm = MiniLMEmbedder()
        real = load_real(args.cache, args.corpus, minilm, args.real_rows)
    vectors = make_vectors(name, clips, real)
    if isinstance(vectors, RealMiniLM) and not vectors.replicated:
        clips = len(vectors.base)  # every distinct real vector once, no copies
    queries, _ = (
        vectors.queries(args.queries, minilm)  # type: ignore[call-arg]
        if isinstance(vectors, RealMiniLM)
        else vectors.queries(args.queries)
    )
    base = args.work / f"{name}-{clips}"
    result: dict[str, Any] = {"dist": name, "description": vectors.description, "clips": clips}
    result["load_before"] = load()
    ann = FORCED_IVF if name == "minilm-ivf" else None
    sets = {"fresh": queries}
    if isinstance(vectors, RealMiniLM):
        draws = RealMiniLM.question_draws(corpus_questions(args.corpus), minilm, args.queries)
        sets["questions"] = draws["questions"]
        if args.tune_set == "questions":
            tune = args.work / f"tune-{name}-questions.npy"
            tune.parent.mkdir(parents=True, exist_ok=True)
            np.save(tune, draws["questions-tune"])
            ann = dataclasses.replace(ann or AnnOptions(), tune_queries=tune)
    if isinstance(vectors, Mixture):
        sets = vectors.query_sets(args.queries)
        if args.tune_set in sets:
            tune = args.work / f"tune-{name}-{args.tune_set}.npy"
            tune.parent.mkdir(parents=True, exist_ok=True)
            np.save(tune, vectors.query_sets(args.queries, seed=1)[args.tune_set])
            ann = dataclasses.replace(ann or AnnOptions(), tune_queries=tune)
    if args.reuse and (base / "manifest.json").is_file():
        result |= reused(base)
    else:
        with niced(args.build_nice):
            result |= build(base, vectors, clips, minilm, ann)
    result["load_after_build"] = load()
    gc.collect()
    result["query_sets"] = measure_sets(base, sets, shares=args.filter_shares, ann=result["ann"])
    gc.collect()
    if not args.sets_only:
        result |= measure(base, vectors, queries, clips, lean=args.lean)
        gc.collect()  # the index is closed and unmapped: eviction can drop its pages
        if not args.lean:
            result["cold_open"] = cold_open(base, vectors.name, queries)
    result["peak_rss_gb"] = round(rss_gb(), 2)
    result["load_after"] = load()
    if not args.keep:
        shutil.rmtree(base, ignore_errors=True)
    return result


def exact_kth(matrix: np.ndarray, rows: np.ndarray, queries: np.ndarray, k: int) -> np.ndarray:
    """Each query's k-th best exact score among `rows` (sorted), by blocks of rows (one BLAS
    product per block for every query at once: the ground truth of the filtered sets)."""
    best = np.full((k, len(queries)), -np.inf, dtype=np.float32)
    for start in range(0, len(rows), 65_536):
        block = np.asarray(matrix[rows[start : start + 65_536]]) @ queries.T
        both = np.concatenate([best, block])
        best = -np.partition(-both, min(k, len(both)) - 1, axis=0)[:k]
    return best.min(axis=0)


def filter_subsets(n: int, shares: Sequence[float]) -> dict[float, np.ndarray]:
    """Per share, a random row subset of that share: a filter independent of the query, drawn
    with the benchmark's own seed (the build draws its tuning subsets with another)."""
    rng = np.random.default_rng(2024)
    return {s: np.sort(rng.choice(n, size=int(s * n), replace=False)) for s in shares}


def build_estimate(ann: dict[str, Any], share: float) -> float | None:
    """The recall the build recorded for filters keeping `share` of the rows: the measured
    share's, else the nearest measured share above (what the search takes its factor from);
    1.0 where that share is searched exactly."""
    measured = sorted(ann.get("filtered", []), key=lambda f: f["share"])
    if ann.get("kind") == "exact" or share * ann.get("rows", 1) <= vec.EXACT_MAX_ROWS:
        return 1.0
    for f in measured:
        if f["share"] >= share * (1 - vec.SAME_SHARE):
            return 1.0 if not f["budget_factor"] else f["recall"]
    return measured[-1]["recall"] if measured and measured[-1]["budget_factor"] else None


def measure_filtered(
    store: Any, ann: dict[str, Any], sets: dict[str, np.ndarray], shares: Sequence[float], k: int
) -> dict[str, Any]:
    """Per filter share (a random row subset) and query set, on the vector core: the served
    path's recall@k mean and p5 against the exact top k among the subset, p50 ms, and the
    path it took, with the build's recorded estimate for that share."""
    out: dict[str, Any] = {}
    for share, subset in filter_subsets(store.n, shares).items():
        row: dict[str, Any] = {"rows": len(subset), "build_estimate": build_estimate(ann, share)}
        for name, queries in sets.items():
            kth = exact_kth(store.matrix, subset, queries, k)
            times, per_query, paths = [], [], set()
            for q, cut in zip(queries, kth, strict=True):
                t = time.perf_counter()
                _, scores = store.search(q, k, subset)
                times.append(time.perf_counter() - t)
                paths.add(store.last_path)
                per_query.append(np.count_nonzero(scores >= cut - TIE_EPS) / k)
            row[name] = {
                "recall": round(float(np.mean(per_query)), 4),
                "recall_p5": round(float(np.percentile(per_query, 5)), 4),
                "p50": pct(times, 50),
                "path": "/".join(sorted(paths)),
            }
        out[f"{share:.3f}"] = row
    return out


def measure_sets(
    base: Path,
    sets: dict[str, np.ndarray],
    k: int = 100,
    shares: Sequence[float] = (),
    ann: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Per query set, on the vector core: recall@k (ties at the k-th exact score count) mean
    and p5, p50/p99 ms and median lists probed on the served path, the same with the fixed
    probe count, and an exact scan's p50. The two IVF paths run in turn for each query, so a
    shared machine's changing load falls on both alike; the exact scans run in a pass of
    their own after them, because OpenBLAS's threads spin for ~0.1 s after a two-thread scan
    and an IVF search split over the cores (ann.py) right after one ran at one thread's speed
    (13.7 vs 7.2 ms at 1.76M rows). Then, per share in `shares`, the same sets under a random
    filter of that share (measure_filtered)."""
    from playscout.search.embedded.vectors import VectorStore

    store = VectorStore.open(base / SPORT / "clips" / "visual" / "dense")
    out: dict[str, Any] = {"load": load()}
    paths: dict[str, dict[str, Any]] = {"exact": {"exact": True}, "served": {}}
    if store.adaptive is not None:
        paths["fixed"] = {"probe": store.nprobe}
    for q in next(iter(sets.values()))[:5]:  # warm code paths
        for kw in paths.values():
            store.search(q, k, **kw)
    for name, queries in sets.items():
        times: dict[str, list[float]] = {p: [] for p in paths}
        probes: dict[str, list[int]] = {p: [] for p in paths}
        found: dict[str, list[Any]] = {p: [] for p in paths}
        ivf_paths = [label for label in paths if label != "exact"]
        for labels in (ivf_paths, ["exact"]):
            for q in queries:
                for label in labels:
                    t = time.perf_counter()
                    found[label].append(store.search(q, k, **paths[label]))
                    times[label].append(time.perf_counter() - t)
                    probes[label].append(store.last_probes)
        row: dict[str, Any] = {"exact_p50": pct(times["exact"], 50)}
        for label in paths:
            if label == "exact":
                continue
            per_query = [
                float(np.count_nonzero(f[1] >= e[1][-1] - TIE_EPS)) / len(e[1])
                for f, e in zip(found[label], found["exact"], strict=True)
            ]
            row[label] = {
                "recall": round(float(np.mean(per_query)), 4),
                "recall_p5": round(float(np.percentile(per_query, 5)), 4),
                "at_target": round(float(np.mean(np.asarray(per_query) >= 0.95)), 3),
                "p50": pct(times[label], 50),
                "p99": pct(times[label], 99),
                "probes_median": int(np.median(probes[label])),
            }
        out[name] = row
    if shares:
        out["filtered"] = measure_filtered(store, ann or {}, sets, shares, k)
    out["load_after"] = load()
    return out


def measure(
    base: Path, vectors: Vectors, queries: np.ndarray, clips: int, lean: bool = False
) -> dict[str, Any]:
    """Warm latency and recall per query kind, ANN vs exact; then (unless `lean`) the vector
    core alone and cold re-scoring."""
    result: dict[str, Any] = {}
    backend = open_index(base, {"visual": LookupQueries(vectors.name, queries)})
    store = backend._sport(SPORT).clips.dense["visual"]
    result["open_rss_gb"] = round(_current_rss_gb(), 2)
    qids = [f"q{i}" for i in range(len(queries))]
    kinds = filters(clips, len(qids))
    sizes = {}
    clip_index = backend._sport(SPORT).clips
    for kind, fs in kinds.items():
        rows = [vec.rowset_size(clip_index.resolve(f), clips) if f else clips for f in fs[:20]]
        sizes[kind] = round(float(np.mean(rows)) / clips, 4)

    def search(arg: tuple[str, ClipFilter | None]) -> list[Any]:
        return backend.search_clips(SPORT, arg[0], arg[1], top_k=100)

    timed(search, [(q, None) for q in qids[:5]])  # warm code paths
    table: dict[str, Any] = {}
    for kind, fs in kinds.items():
        pairs = list(zip(qids, fs, strict=True))
        backend.exact = False
        ann_t, ann_hits = timed(search, pairs)
        paths = store.last_path
        backend.exact = True
        ex_t, ex_hits = timed(search, pairs)
        backend.exact = False
        table[kind] = {
            "share": sizes[kind],
            "path": paths,
            "p50": pct(ann_t, 50),
            "p99": pct(ann_t, 99),
            "exact_p50": pct(ex_t, 50),
            "exact_p99": pct(ex_t, 99),
            **recalls(ann_hits, ex_hits),
        }
    result["table"] = table
    if not lean:
        core_ann, _ = timed(lambda q: store.search(q, 100), list(queries))
        core_ex, _ = timed(lambda q: store.search(q, 100, exact=True), list(queries))
        result["core"] = {"p50": pct(core_ann, 50), "exact_p50": pct(core_ex, 50)}
        result["cold"] = cold(backend, store, qids, queries)
    backend.close()
    return result


def _current_rss_gb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1e6
    return -1.0


def cold(backend: Any, store: Any, qids: list[str], queries: np.ndarray) -> dict[str, Any]:
    """The same unfiltered queries, each right after the float32 vector file was evicted from
    the page cache (our mapping's pages released with madvise(DONTNEED), then the file's
    with posix_fadvise(DONTNEED); fincore checks what is left). The IVF index, the records
    and tantivy stay as they were: this is the re-scoring's cold cost. Run with the re-score
    prefetch and without."""
    path = store_path(backend)
    out: dict[str, Any] = {}
    n = min(len(qids), 50)
    prefetch = vec.MappedMatrix.prefetch

    def drop() -> float:
        store.mapped._map.madvise(mmap.MADV_DONTNEED)
        fd = os.open(path, os.O_RDONLY)
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)
        return resident_share(path)

    for label, fetch in (("prefetch", prefetch), ("no prefetch", lambda self, rows: None)):
        vec.MappedMatrix.prefetch = fetch  # type: ignore[method-assign]
        times: dict[str, list[float]] = {"search": [], "core": []}
        left = []
        for i in range(n):
            left.append(drop())
            t = time.perf_counter()
            backend.search_clips(SPORT, qids[i], None, top_k=100)
            times["search"].append(time.perf_counter() - t)
            left.append(drop())
            t = time.perf_counter()
            store.search(queries[i], 100)
            times["core"].append(time.perf_counter() - t)
        out[label] = {
            "search_p50": pct(times["search"], 50),
            "search_p99": pct(times["search"], 99),
            "core_p50": pct(times["core"], 50),
            "core_p99": pct(times["core"], 99),
            "resident_after_evict": max(left),
            "queries": n,
        }
    vec.MappedMatrix.prefetch = prefetch  # type: ignore[method-assign]
    return out


def store_path(backend: Any) -> Path:
    return Path(backend.path) / SPORT / "clips" / "visual" / "dense" / "vectors.npy"


def cold_open(base: Path, name: str, queries: np.ndarray, runs: int = 3) -> dict[str, Any]:
    """Every index file evicted, then open (reads the IVF into RAM) and one search."""
    opens, firsts = [], []
    for i in range(runs):
        gc.collect()
        evict(base)
        t = time.perf_counter()
        backend = open_index(base, {"visual": LookupQueries(name, queries)})
        opens.append(time.perf_counter() - t)
        t = time.perf_counter()
        backend.search_clips(SPORT, f"q{i}", None, top_k=100)
        firsts.append(time.perf_counter() - t)
        backend.close()
        del backend
    return {"open_s": round(float(np.median(opens)), 2), "first_search_ms": pct(firsts, 50)}


# -- documents -----------------------------------------------------------------------------
def run_docs(args: argparse.Namespace) -> dict[str, Any]:
    from search_docs import build_docs, doc_queries

    from playscout.embed import MiniLMEmbedder

    minilm = MiniLMEmbedder()
    base = args.work / f"docs-{args.passages}"
    result: dict[str, Any] = {"dist": "docs", "load_before": load()}
    result |= build_docs(base, args, minilm)
    backend = open_index(base, {"documents": minilm})
    texts = doc_queries(args.queries, args.corpus)

    def hybrid(q: str) -> list[str]:
        return [h.doc_id for h in backend.search_documents(SPORT, q, top_k=20)]

    timed(hybrid, texts[:5])
    embed_t, _ = timed(lambda q: minilm.embed_queries([q]), texts)
    ann_t, ann_ids = timed(hybrid, texts)
    backend.exact = True
    ex_t, ex_ids = timed(hybrid, texts)
    overlap = [len(set(a) & set(e)) / max(1, len(e)) for a, e in zip(ann_ids, ex_ids, strict=True)]
    result["hybrid"] = {
        "p50": pct(ann_t, 50),
        "p99": pct(ann_t, 99),
        "exact_p50": pct(ex_t, 50),
        "exact_p99": pct(ex_t, 99),
        "embed_p50": pct(embed_t, 50),
        "top20_overlap_with_exact": round(float(np.mean(overlap)), 4),
    }
    result["peak_rss_gb"] = round(rss_gb(), 2)
    result["load_after"] = load()
    backend.close()
    if not args.keep:
        shutil.rmtree(base, ignore_errors=True)
    return result


# -- driver -----------------------------------------------------------------------------------
def ratio(a: float, b: float) -> str:
    return f"{a / b:.1f}x" if b > 0 else "-"


def print_dist(r: dict[str, Any]) -> None:
    ann = r["ann"]
    if ann["kind"] == "exact":
        setting = f"exact ({ann['reason']})"
    else:
        setting = (
            f"IVF{ann['nlist']}-SQ8 nprobe {ann['nprobe']}, build-time recall {ann['recall']}"
            f" ({ann['queries']})"
        )
    print(f"\n## {r['dist']}: {r['description']}; {r['clips']} clips")
    if "reused" in r:
        print(f"reused the index at {r['reused']} (built by an earlier run)")
    print(
        f"build {r['build_s']} s, build peak RSS {r['build_peak_rss_gb']} GB, index "
        f"{r['index_gb']} GB, RSS after open {r.get('open_rss_gb', '-')} GB, process peak "
        f"{r['peak_rss_gb']} GB; load {r['load_before']} -> {r['load_after']}"
    )
    print(f"chosen setting: {setting}")
    for name, source in ann.get("query_sources", {}).items():
        print(f"  tuned on {name}: {source}")
    rule = ann.get("adaptive")
    if rule:
        print(
            f"  per-query probes: {'chosen' if rule['chosen'] else 'not chosen'}"
            + (
                f", depth {rule['depth']}, build-time recall {rule['recall_by_queries']}, "
                f"median probes {rule['probes_median']}"
                if "depth" in rule
                else ""
            )
            + (f" ({rule['reason']})" if "reason" in rule else "")
        )
    qsets = r.get("query_sets", {})
    if qsets:
        print(
            f"query sets (vector core; load {qsets['load']} -> {qsets['load_after']}; the "
            f"build's recorded estimate: recall {ann.get('recall')}):"
        )
        print(
            "| query set | path | recall@100 mean | p5 | share >= 0.95 | p50 ms | p99 ms "
            "| lists probed (median) | exact p50 ms |"
        )
        print("|---|---|---|---|---|---|---|---|---|")
        for name, row in qsets.items():
            if not isinstance(row, dict) or name == "filtered":
                continue
            for label in ("served", "fixed"):
                if label in row:
                    x = row[label]
                    print(
                        f"| {name} | {label} | {x['recall']} | {x['recall_p5']} | "
                        f"{x['at_target']} | {x['p50']} | {x['p99']} | {x['probes_median']} "
                        f"| {row['exact_p50']} |"
                    )
    print_filtered(qsets.get("filtered", {}))
    if "table" not in r:  # --sets-only
        return
    for f in ann.get("filtered", []):
        how = (
            f"budget x{f['budget_factor']}, build-time recall {f['recall']} "
            f"(lower bound {f['recall_lower_bound']}), {f['ms']} ms vs exact {f['exact_ms']} ms"
            if f["budget_factor"]
            else f"{f['reason']}"
        )
        print(f"  filters keeping {f['share']:.1%} ({f['rows']} rows): {how}")
    print(
        "| query | rows kept | path | recall@100 (ties) | recall@100 (ids) | p50 ms | p99 ms "
        "| exact p50 | exact p99 | exact/ANN p50 |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for kind, t in r["table"].items():
        same = t["path"] == "exact"
        print(
            f"| {kind} | {t['share']:.1%} | {t['path']} | {t['recall']} | {t['recall_ids']} "
            f"| {t['p50']} | {t['p99']} | {t['exact_p50']} | {t['exact_p99']} | "
            f"{'(same path)' if same else ratio(t['exact_p50'], t['p50'])} |"
        )
    if "core" not in r:  # --lean
        return
    c = r["core"]
    print(
        f"vector core alone, unfiltered: p50 {c['p50']} ms vs exact {c['exact_p50']} ms "
        f"({ratio(c['exact_p50'], c['p50'])})"
    )
    o = r["cold_open"]
    print(
        f"cold open (every index file evicted): open {o['open_s']} s, then first search "
        f"{o['first_search_ms']} ms"
    )
    for label, x in r["cold"].items():
        print(
            f"cold cache ({label}, {x['queries']} queries, vectors resident after evict <= "
            f"{x['resident_after_evict']:.1%}): search p50 {x['search_p50']} / p99 "
            f"{x['search_p99']} ms; vector core p50 {x['core_p50']} / p99 {x['core_p99']} ms"
        )


def print_filtered(filtered: dict[str, Any]) -> None:
    """Per random filter share and query set: served recall mean / p5 (path), p50 ms, beside
    the build's recorded estimate for that share."""
    if not filtered:
        return
    names = [n for n in next(iter(filtered.values())) if n not in ("rows", "build_estimate")]
    print("query sets under random filters (vector core; recall@100 mean / p5, p50 ms, path):")
    print("| rows kept | build estimate | " + " | ".join(names) + " |")
    print("|---|---|" + "---|" * len(names))
    for share, row in filtered.items():
        cells = [
            f"{row[n]['recall']} / {row[n]['recall_p5']}, {row[n]['p50']} ms, {row[n]['path']}"
            for n in names
        ]
        print(
            f"| {float(share):.1%} ({row['rows']}) | {row['build_estimate']} | "
            + " | ".join(cells)
            + " |"
        )


def print_docs(r: dict[str, Any]) -> None:
    h = r["hybrid"]
    print(f"\n## documents: {r['description']}")
    print(
        f"build {r['build_s']} s; setting: {r['setting']}; load {r['load_before']} -> "
        f"{r['load_after']}"
    )
    print(
        f"hybrid search incl. MiniLM query embedding: p50 {h['p50']} ms, p99 {h['p99']} ms; "
        f"with exact dense: p50 {h['exact_p50']} ms ({ratio(h['exact_p50'], h['p50'])}); "
        f"embedding alone p50 {h['embed_p50']} ms; top-20 overlap with exact "
        f"{h['top20_overlap_with_exact']}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clips", type=int, default=200_000)
    ap.add_argument("--dists", default=",".join(DISTS), help=f"any of {DISTS}, and docs")
    ap.add_argument("--passages", type=int, default=123_000, help="document passages (docs)")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--work", type=Path, default=ROOT / "var" / "bench")
    ap.add_argument("--cache", type=Path, default=ROOT / "var" / "minilm-cache")
    ap.add_argument(
        "--real-rows",
        type=int,
        default=104_448,
        help="real caption vectors (51 x 2048; 2%% are held out as queries)",
    )
    ap.add_argument("--corpus", type=Path, default=ROOT / "var" / "corpus-real")
    ap.add_argument("--keep", action="store_true", help="keep the indexes afterwards")
    ap.add_argument(
        "--tune-set",
        choices=("gap", "shift", "fresh", "questions"),
        help="build with another draw of this query set as the user's query file (gap, "
        "shift, fresh: the mixtures; questions: the real sets, the corpus's T9 questions)",
    )
    ap.add_argument(
        "--sets-only",
        action="store_true",
        help="measure only the query sets (skip the filters, core and cold-cache parts)",
    )
    ap.add_argument(
        "--build-nice",
        type=int,
        default=0,
        help="build each index this much nicer, then measure at the usual priority",
    )
    ap.add_argument(
        "--reuse",
        action="store_true",
        help="measure an index an earlier --keep run left in --work instead of building one",
    )
    ap.add_argument(
        "--lean",
        action="store_true",
        help="skip the vector core rerun, the cold-cache and the cold-open parts",
    )
    ap.add_argument(
        "--filter-shares",
        type=lambda v: [float(x) for x in v.split(",") if x],
        default=[0.023, 0.05, 0.1, 0.3],
        help="shares of the rows kept by the random filters under which every query set is "
        "measured too ('' for none)",
    )
    ap.add_argument(
        "--exact-max-rows",
        type=int,
        help="filters keeping up to this many rows are searched exactly (default: the "
        "product's 40,000); 4545 at 200,000 clips puts the same shares on the IVF path as "
        "40,000 does at 1,760,230, to iterate on filtered recall at the small size",
    )
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--json", type=Path, help="also write every result here")
    args = ap.parse_args()
    if args.one:
        result = run_docs(args) if args.one == "docs" else run_one(args)
        print("RESULT " + json.dumps(result), flush=True)
        return
    print(f"# search benchmark, {args.clips} clips, {args.queries} queries, {os.cpu_count()} CPUs")
    results = []
    for name in args.dists.split(","):
        cmd = [sys.executable, __file__, "--one", name, *sys.argv[1:]]
        done = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, check=False)
        lines = [x for x in done.stdout.splitlines() if x.startswith("RESULT ")]
        if done.returncode or not lines:  # one failed distribution must not lose the others
            print(f"\n## {name}: FAILED (exit {done.returncode}; see stderr)", flush=True)
            continue
        line = lines[-1]
        result = json.loads(line[len("RESULT ") :])
        results.append(result)
        (print_docs if name == "docs" else print_dist)(result)
        sys.stdout.flush()
        if args.json:  # after each distribution, so an interrupted run keeps what finished
            args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
