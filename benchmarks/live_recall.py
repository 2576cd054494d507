"""Serve's live recall estimate next to the true recall of the same queries, and what `index
tune` on the query log does (search/embedded/live_recall.py, tune.py).

    python benchmarks/live_recall.py [--clips 100000] [--dist medium] [--queries 200]

Builds one clip channel of `--dist` rows (benchmarks/search_data.py) tuned on data rows only
(the build's fallback), in a temp folder. Then, per query set ("fresh" draws of the data and
"gap" queries from another source), every query is searched on the served path
(`VectorStore.open`: the fixed probe count and the per-query rule) and offered to a
RecallSampler at rate 1.0, each check awaited; the script prints the live estimate beside the
recall computed here from a brute-force top k of the same queries. The gap set's checks
are logged; `tune_index` then re-chooses the probe setting on that log, and both sets are
measured again on queries of another draw (not tuned on).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from search import make_vectors

from playscout.search.embedded.integrity import FILES_KEY, record_files, seal
from playscout.search.embedded.layout import FORMAT, MANIFEST, SCHEMA_VERSION
from playscout.search.embedded.live_recall import RecallSampler
from playscout.search.embedded.query_log import QueryLog
from playscout.search.embedded.recall import AnnOptions, build_ann
from playscout.search.embedded.tune import tune_index
from playscout.search.embedded.vectors import VectorStore, VectorWriter

K = 100
SPORT, CHANNEL = "basketball", "visual"


def build(root: Path, dist: Any, n: int, opts: AnnOptions) -> Path:
    dense = root / SPORT / "clips" / CHANNEL / "dense"
    dense.mkdir(parents=True)
    w = VectorWriter(dense / "vectors.npy", 384)
    for start in range(0, n, 4096):
        w.append(dist.rows(np.arange(start, min(n, start + 4096)))[: n - start])
    w.close()
    entry = build_ann(dense, opts)
    manifest: dict[str, Any] = {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "sports": {SPORT: {"channels": {CHANNEL: {"dim": 384, "ann": entry}}}},
    }
    manifest[FILES_KEY] = record_files(root)
    (root / MANIFEST).write_text(json.dumps(seal(manifest)))
    return dense


def live_vs_true(
    store: VectorStore, queries: np.ndarray, qlog: QueryLog | None
) -> tuple[dict[str, Any], float, float]:
    sampler = RecallSampler(1.0, lambda s, c: 0.95, window=len(queries), query_log=qlog)
    true = []
    for q in queries:
        _, scores = store.search(q, K)
        sampler.offer(SPORT, CHANNEL, store, q, None, K, scores)
        exact = np.argpartition(-(store.matrix @ q), K)[:K]
        served = store.search(q, K)[0]
        true.append(len(set(served.tolist()) & set(exact.tolist())) / K)
        sampler.wait_idle()
    sampler.close()
    est = sampler.snapshot()[SPORT][CHANNEL]
    return est, float(np.mean(true)), float(np.percentile(true, 5))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--clips", type=int, default=100_000)
    ap.add_argument("--dist", default="medium")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument(
        "--force-ivf", action="store_true", help="keep IVF where an exact scan is as fast"
    )
    args = ap.parse_args()
    if args.dist not in ("mixture", "medium", "wide", "dup"):
        raise SystemExit("--dist: one of mixture, medium, wide, dup (the sets with query sets)")
    dist: Any = make_vectors(args.dist, args.clips, None)
    opts = AnnOptions(min_rows=1000, compare_exact=not args.force_ivf)
    with tempfile.TemporaryDirectory(dir="var" if Path("var").is_dir() else None) as tmp:
        root = Path(tmp) / "index"
        t = time.perf_counter()
        dense = build(root, dist, args.clips, opts)
        print(f"built {args.clips} rows in {time.perf_counter() - t:.1f} s", flush=True)
        qlog = QueryLog(Path(tmp) / "query-log.jsonl")
        served_sets = dist.query_sets(args.queries, seed=1)
        fresh_sets = dist.query_sets(args.queries, seed=2)
        for phase, sets in (("build (rows only)", served_sets), ("after tune", fresh_sets)):
            store = VectorStore.open(dense)
            setting = json.loads((dense / "ann.json").read_text())
            rule = setting.get("adaptive") or {}
            print(f"{phase}: nprobe {store.nprobe}, per-query depth {rule.get('depth')}")
            for name in ("fresh", "gap"):
                log = qlog if phase.startswith("build") and name == "gap" else None
                est, mean, p5 = live_vs_true(store, sets[name], log)
                print(
                    f"  {name}: live estimate {est['recall_mean']:.4f} over {est['checked']} "
                    f"checks; true recall@{K} {mean:.4f} (p5 {p5:.2f})",
                    flush=True,
                )
            if phase.startswith("build"):
                t = time.perf_counter()
                tuned = tune_index(root, opts, qlog.path)[SPORT][CHANNEL]
                print(
                    f"index tune on {tuned['queries']}: nprobe {tuned['nprobe']}, limited by "
                    f"{tuned['limited_by']}, in {time.perf_counter() - t:.1f} s",
                    flush=True,
                )


if __name__ == "__main__":
    main()
