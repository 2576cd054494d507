"""HTTP API under load: N concurrent `/v1/ask` (workflow policy, oracle mode) against a real
uvicorn on loopback over the demo-size corpus (12 games, seed 7), then streamed first-event
latency. Reports errors, p50/p99 latency, requests/s. Bounded: every request has a timeout and
the script stops by itself.

    .venv/bin/python benchmarks/api.py [--requests 50] [--concurrency 50] [--work var/bench-api]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import threading
import time
from pathlib import Path

import httpx
import uvicorn

from playscout.config import Settings
from playscout.corpus import Corpus
from playscout.indexer.build import build_from_corpus
from playscout.search import open_backend
from playscout.serving.app import create_app
from playscout.synthetic import generate_corpus, generate_questions


def build(work: Path) -> tuple[Path, list[str]]:
    corpus, index = work / "corpus", work / "index"
    if not (index / "manifest.json").exists() and not index.exists():
        generate_corpus(corpus, games=12, seed=7)
        generate_questions(corpus, per_sport=5, seed=7)
        build_from_corpus(corpus, index, overwrite=True)
    questions = [q.question for q in Corpus(corpus).questions("basketball")]
    return index, questions


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


async def load(url: str, questions: list[str], n: int, concurrency: int) -> dict[str, object]:
    sem = asyncio.Semaphore(concurrency)
    latencies: list[float] = []
    errors: list[str] = []
    limits = httpx.Limits(max_connections=concurrency)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:

        async def one(i: int) -> None:
            body = {
                "question": questions[i % len(questions)],
                "policy": "workflow",
                "mode": "oracle",
            }
            async with sem:
                start = time.perf_counter()
                try:
                    r = await client.post("/v1/ask", json=body)
                    if r.status_code != 200:
                        errors.append(f"{r.status_code} {r.text[:100]}")
                except httpx.HTTPError as e:
                    errors.append(type(e).__name__)
                latencies.append(time.perf_counter() - start)

        start = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(n)))
        wall = time.perf_counter() - start
        first: list[float] = []
        for i in range(10):
            body = {
                "question": questions[i % len(questions)],
                "policy": "workflow",
                "mode": "oracle",
            }
            t0 = time.perf_counter()
            async with client.stream("POST", "/v1/ask/stream", json=body) as s:
                seen = False
                async for _ in s.aiter_lines():
                    if not seen:
                        first.append(time.perf_counter() - t0)
                        seen = True
    return {
        "requests": n,
        "concurrency": concurrency,
        "errors": len(errors),
        "error_samples": errors[:3],
        "p50_s": round(statistics.median(latencies), 4),
        "p99_s": round(pct(latencies, 99), 4),
        "requests_per_s": round(n / wall, 2),
        "wall_s": round(wall, 2),
        "stream_first_event_p50_s": round(statistics.median(first), 4),
        "stream_first_event_max_s": round(max(first), 4),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=50)
    ap.add_argument("--concurrency", type=int, default=50)
    ap.add_argument("--work", type=Path, default=Path("var/bench-api"))
    args = ap.parse_args()
    t0 = time.perf_counter()
    index, questions = build(args.work)
    print(f"index ready in {time.perf_counter() - t0:.1f} s ({len(questions)} questions)")
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings.model_validate(
            {
                "index": str(index),
                "serving": {
                    "port": 0,
                    "max_concurrent_asks": args.concurrency,
                },
                "agent": {"trajectory_dir": Path(tmp) / "traj", "session_db": Path(tmp) / "s"},
            }
        )
        app = create_app(settings, backend=open_backend(index), api_key="")
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 30
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        port = server.servers[0].sockets[0].getsockname()[1]
        try:
            report = asyncio.run(
                asyncio.wait_for(
                    load(f"http://127.0.0.1:{port}", questions, args.requests, args.concurrency),
                    timeout=600,
                )
            )
        finally:
            server.should_exit = True
            thread.join(timeout=30)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
