"""Search p50 end to end, query embedding included, by where the query is embedded (issue 36):
the numpy MiniLM encoder (a cold CLI search), the warm path a server or an eval run opens
(`open_backend(warm=True)`: the GPU model where there is one, else the numpy encoder), and the
torch model forced on the CPU for comparison. Each row also shows the embedding alone, and
the ratio against the numpy encoder measured in the same run.

    .venv/bin/python benchmarks/query_encoder.py --index DIR [--queries 200] [--sport S]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

WORDS = [
    *("three", "pointer", "corner", "drive", "layup", "block", "steal", "turnover", "free"),
    *("throw", "rebound", "fast", "break", "power", "play", "goal", "save", "penalty"),
    *("kick", "header", "offside", "timeout", "foul", "assist", "dunk"),
]


def queries(n: int) -> list[str]:
    """Distinct 3-8 word queries (no cache can answer a repeat)."""
    out = []
    for i in range(n):
        size = 3 + i % 6
        out.append(" ".join(WORDS[(i * 7 + j * 3) % len(WORDS)] for j in range(size)) + f" {i}")
    return out


def p50s_ms(fns: list[Callable[[str], Any]], texts: list[str]) -> list[float]:
    """Each function's median over `texts`, the functions taking turns on every query (the
    machine's load moves; a mode timed after another would meet another load)."""
    for t in texts[:5]:
        for fn in fns:
            fn(t)  # warm: first calls load and allocate
    times: list[list[float]] = [[] for _ in fns]
    for i, t in enumerate(texts):
        order = range(len(fns)) if i % 2 == 0 else reversed(range(len(fns)))
        for j in order:
            started = time.perf_counter()
            fns[j](t)
            times[j].append(time.perf_counter() - started)
    return [statistics.median(x) * 1000 for x in times]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--index", type=Path, required=True)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--sport", default=None)
    ap.add_argument("--search-device", default="cpu", help="search.device for the vectors")
    args = ap.parse_args(argv)
    from playscout.search import open_backend

    texts = queries(args.queries)
    cold = open_backend(args.index, device=args.search_device)
    sport = args.sport or cold.sports()[0]
    embedder: Any = cold.embedders["caption"]  # type: ignore[attr-defined]

    def search(backend: Any) -> Callable[[str], Any]:
        return lambda q: backend.search_clips(sport, q, channel="caption", mode="dense", top_k=100)

    warm = open_backend(args.index, device=args.search_device, warm=True)
    warm_emb: Any = warm.embedders["caption"]  # type: ignore[attr-defined]
    where = "GPU model" if getattr(warm_emb, "queries_on_device", False) else "numpy encoder"
    forced = open_backend(args.index, device=args.search_device, embed_device="cpu")
    forced_emb: Any = forced.embedders["caption"]  # type: ignore[attr-defined]
    forced_emb.load_for_documents()
    forced_emb.queries_on_device = True  # the torch model on the CPU, for comparison
    names = ["numpy encoder (cold CLI)", f"warm (serve, eval): {where}", "torch model on the CPU"]
    backends = [cold, warm, forced]
    embedders = [embedder, warm_emb, forced_emb]
    totals = p50s_ms([search(b) for b in backends], texts)
    embeds = p50s_ms([lambda q, e=e: e.embed_queries([q]) for e in embedders], texts)
    rows = list(zip(names, totals, embeds, strict=True))
    base = rows[0][1]
    print(f"benchmarks/query_encoder.py: {args.index} ({sport}), {len(texts)} queries")
    print(f"  {'':<40}{'search p50':>12}{'embed p50':>12}  vs numpy")
    for name, total, embed in rows:
        print(f"  {name:<40}{total:>10.2f}ms{embed:>10.2f}ms  {total / base:6.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
