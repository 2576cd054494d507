"""open_clip towers on this machine: image-tower throughput (frames/s, 224x224 RGB frames through
open_clip preprocessing and the tower, in batches) and text-tower latency of one query.

Weights are RANDOMLY initialised (no checkpoint ships offline): the numbers measure compute,
not quality. On a shared machine read the *_cpu_* fields (CPU seconds of all threads).
ViT-B-32 random weights are written once to --work (about 600 MB).

    .venv/bin/python benchmarks/open_clip_towers.py [--models playscout-tiny,ViT-B-32]
        [--batch 32] [--batches 4] [--queries 30] [--work /tmp/playscout-clip-bench]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np

from playscout.embed.open_clip import OpenClipEmbedder, make_random_weights


def bench(model: str, work: Path, batch: int, batches: int, queries: int) -> dict[str, object]:
    weights = work / f"{model}-seed0.pt"
    if not weights.is_file():
        make_random_weights(weights, model, seed=0)
    t0 = time.perf_counter()
    emb = OpenClipEmbedder(model, pretrained=str(weights), batch_size=batch)
    load_s = time.perf_counter() - t0
    rng = np.random.default_rng(0)
    frames = [rng.integers(0, 256, (224, 224, 3), dtype=np.uint8) for _ in range(batch)]
    emb.embed_images(frames)  # warm-up
    times, cpu = [], []
    for _ in range(batches):
        t, c = time.perf_counter(), time.process_time()
        emb.embed_images(frames)
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    # preprocessing alone (PIL resize/crop/normalise), to separate it from the tower
    from PIL import Image

    t = time.perf_counter()
    for f in frames:
        emb._m.preprocess(Image.fromarray(f))
    pre_s = time.perf_counter() - t
    emb.embed_queries(["warm up"])
    lat, lat_cpu = [], []
    for i in range(queries):
        t, c = time.perf_counter(), time.process_time()
        emb.embed_queries([f"a three point shot at the buzzer number {i}"])
        lat.append(time.perf_counter() - t)
        lat_cpu.append(time.process_time() - c)
    med = statistics.median(times)
    return {
        "model": model,
        "dim": emb.dim,
        "load_s": round(load_s, 2),
        "image_frames_per_s": round(batch / med, 1),
        "image_batch_s_median": round(med, 4),
        # CPU seconds of all threads: less sensitive to other load on a shared machine
        "image_frames_per_cpu_s": round(batch / statistics.median(cpu), 1),
        "preprocess_frames_per_s": round(batch / pre_s, 1),
        "query_ms_p50": round(1000 * statistics.median(lat), 2),
        "query_ms_max": round(1000 * max(lat), 2),
        "query_cpu_ms_p50": round(1000 * statistics.median(lat_cpu), 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="playscout-tiny,ViT-B-32")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--batches", type=int, default=4)
    ap.add_argument("--queries", type=int, default=30)
    ap.add_argument("--work", type=Path, default=Path("/tmp/playscout-clip-bench"))
    args = ap.parse_args()
    import torch

    print(json.dumps({"torch_threads": torch.get_num_threads()}))
    for model in args.models.split(","):
        print(json.dumps(bench(model, args.work, args.batch, args.batches, args.queries)))


if __name__ == "__main__":
    main()
