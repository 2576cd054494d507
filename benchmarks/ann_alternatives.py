"""Other index types beside the IVF-SQ8 index a `benchmarks/search.py --keep` run left, on the
same vectors and query sets, each followed by the same exact re-score of its candidates:

- IVF-PQ fast-scan (faiss IVF<nlist>,PQ<m>x4fs) over the kept index's own lists (its
  centroids are reused, so the lists are the same): 4-bit codes scanned with SIMD lookups,
  m/2 bytes a row, at a probe count and a candidate depth k';
- an HNSW graph (faiss HNSW<M>-SQ8, inner product) at a search depth ef (`--hnsw`; building it
  over 1.76M rows took 388-477 s on 2 cores).

The kept index's own path (IVF-SQ8 at its chosen nprobe, candidates re-scored) is measured in
the same run as the baseline. One thread, one query at a time; recall@100 counts a hit whose
exact score reaches the exact 100th score (ties either way), as search.py does.

    .venv/bin/python benchmarks/ann_alternatives.py --dist wide [--hnsw]
        [--work var/bench] [--clips 1760230] [--queries 200]

Written for the wide mixture, where IVF-SQ8 meets recall but not latency (a query's
neighbours lie in half the lists or more); any kept mixture (`--dist`) works.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import faiss
import numpy as np
from search_data import SPORT, Mixture, NearDuplicates

from playscout.search.embedded.recall import TIE_EPS, QuerySet, _exact_top

ROOT = Path(__file__).resolve().parents[1]
K = 100
TRAIN_ROWS = 100_000


def measure(
    name: str,
    candidates: Callable[[np.ndarray], np.ndarray],
    matrix: np.ndarray,
    sets: dict[str, np.ndarray],
    kth: dict[str, np.ndarray],
) -> None:
    """One line: per query set, recall@100 mean / p5 and p50 / p99 ms of candidates plus the
    exact re-score."""
    cells = []
    for set_name, queries in sets.items():
        recall, times = [], []
        for q, floor in zip(queries, kth[set_name], strict=True):
            t = time.perf_counter()
            ids = np.sort(candidates(q))
            ids = ids[ids >= 0]
            scores = matrix[ids] @ q
            top = scores[np.argpartition(-scores, min(K, len(scores)) - 1)[:K]]
            times.append(time.perf_counter() - t)
            recall.append(float(np.mean(top >= floor - TIE_EPS)) if len(top) == K else 0.0)
        r, ms = np.asarray(recall), np.asarray(times) * 1e3
        cells.append(
            f"{set_name} {r.mean():.4f} / p5 {np.percentile(r, 5):.2f}, "
            f"{np.median(ms):.1f} / {np.percentile(ms, 99):.1f} ms"
        )
    print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dist", default="wide", choices=("mixture", "medium", "wide", "dup"))
    ap.add_argument("--work", type=Path, default=ROOT / "var" / "bench")
    ap.add_argument("--clips", type=int, default=1_760_230)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--pq-m", type=int, default=96, help="PQ sub-quantizers (4 bits each)")
    ap.add_argument("--hnsw", action="store_true", help="also build and measure HNSW")
    args = ap.parse_args()
    faiss.omp_set_num_threads(1)
    channel = args.work / f"{args.dist}-{args.clips}" / SPORT / "clips" / "visual" / "dense"
    if not (channel / "ann.faiss").exists():
        raise SystemExit(
            f"{channel} has no IVF index (the build chose exact search, or no "
            "`benchmarks/search.py --keep` run left one): nothing to compare"
        )
    matrix = np.load(channel / "vectors.npy", mmap_mode="r")
    kept = faiss.read_index(str(channel / "ann.faiss"))  # owns what `sq8` points at
    sq8 = faiss.extract_index_ivf(kept)
    data = (
        NearDuplicates(1.3)
        if args.dist == "dup"
        else Mixture({"mixture": 0.9, "medium": 1.3, "wide": 2.0}[args.dist], name=args.dist)
    )
    sets = data.query_sets(args.queries)
    kth = {name: _exact_top(matrix, QuerySet(name, q, None), K)[0] for name, q in sets.items()}
    n, dim = matrix.shape
    print(f"# {args.dist}, {n:,} x {dim}, {args.queries} queries a set, one thread")
    print("| index, setting | " + " | ".join(f"{s}: recall mean / p5, p50 / p99" for s in sets))
    print("|---|" + "---|" * len(sets))

    setting = json.loads((channel / "ann.json").read_text())
    nprobe = int(setting["nprobe"])
    for probes in (nprobe, sq8.nlist):
        params = faiss.SearchParametersIVF(nprobe=probes)
        measure(
            f"IVF{sq8.nlist}-SQ8 (kept), nprobe {probes}, k' {4 * K}",
            lambda q, p=params: sq8.search(q[None], 4 * K, params=p)[1][0],
            matrix,
            sets,
            kth,
        )

    quantizer = faiss.IndexFlatIP(dim)
    quantizer.add(sq8.quantizer.reconstruct_n(0, sq8.nlist))
    pq = faiss.IndexIVFPQFastScan(
        quantizer, dim, sq8.nlist, args.pq_m, 4, faiss.METRIC_INNER_PRODUCT
    )
    rng = np.random.default_rng(0)
    t = time.perf_counter()
    pq.train(np.ascontiguousarray(matrix[np.sort(rng.choice(n, TRAIN_ROWS, replace=False))]))
    for s in range(0, n, 200_000):
        pq.add(np.ascontiguousarray(matrix[s : s + 200_000]))
    print(f"(IVF-PQ{args.pq_m}x4fs built in {time.perf_counter() - t:.0f} s)")
    ladder = [(256, 1000), (nprobe, 1000), (sq8.nlist, 1000), (sq8.nlist, 5000), (sq8.nlist, 20000)]
    for probes, depth in ladder:
        params = faiss.SearchParametersIVF(nprobe=probes)
        measure(
            f"IVF{sq8.nlist}-PQ{args.pq_m}x4fs, nprobe {probes}, k' {depth}",
            lambda q, p=params, d=depth: pq.search(q[None], d, params=p)[1][0],
            matrix,
            sets,
            kth,
        )
    if not args.hnsw:
        return
    graph = faiss.IndexHNSWSQ(dim, faiss.ScalarQuantizer.QT_8bit, 32, faiss.METRIC_INNER_PRODUCT)
    graph.hnsw.efConstruction = 64
    t = time.perf_counter()
    graph.train(np.ascontiguousarray(matrix[:200_000]))
    faiss.omp_set_num_threads(os.cpu_count() or 1)  # the build uses every core
    for s in range(0, n, 100_000):
        graph.add(np.ascontiguousarray(matrix[s : s + 100_000]))
    faiss.omp_set_num_threads(1)
    print(f"(HNSW32-SQ8, efConstruction 64, built in {time.perf_counter() - t:.0f} s)")
    for ef in (100, 200, 400, 800):
        params = faiss.SearchParametersHNSW(efSearch=ef)
        measure(
            f"HNSW32-SQ8, ef {ef}, k' {min(ef, 4 * K)}",
            lambda q, p=params, e=ef: graph.search(q[None], min(e, 4 * K), params=p)[1][0],
            matrix,
            sets,
            kth,
        )


if __name__ == "__main__":
    main()
