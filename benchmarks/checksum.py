"""Which streaming checksum an index records: throughput of each candidate over one large file,
as a ratio against plain reading of the same file in the same run.

    python benchmarks/checksum.py [--gb 2.7] [--file PATH] [--rounds 2]

Without --file it writes a float32 file of --gb gigabytes (random unit vectors, the shape of a
384-d vectors.npy: 2.7 GB is ~1.76M clips) into a temp folder and deletes it at the end. Each
candidate reads the file in 1 MiB blocks (the same loop `index verify` runs) after a warm-up
read, so the page cache holds the file and the numbers compare hashing cost, not the disk.
Candidates: hashlib blake2b and sha256 (stdlib), xxhash xxh3_64/xxh3_128 (`xxhash`, already a
dependency through langgraph), blake3 (`blake3`, only when installed). The best of --rounds is
reported.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

BLOCK = 1 << 20


def _write_vectors(path: Path, gigabytes: float, dim: int = 384) -> None:
    rows = int(gigabytes * 1e9) // (dim * 4)
    rng = np.random.default_rng(0)
    with path.open("wb") as fh:
        for start in range(0, rows, 65_536):
            block = rng.standard_normal((min(65_536, rows - start), dim), dtype=np.float32)
            block /= np.linalg.norm(block, axis=1, keepdims=True)
            fh.write(block.tobytes())


def _stream(path: Path, update: Callable[[memoryview], Any] | None) -> float:
    buf = bytearray(BLOCK)
    view = memoryview(buf)
    start = time.perf_counter()
    with path.open("rb", buffering=0) as fh:
        while n := fh.readinto(buf):
            if update is not None:
                update(view[:n])
    return time.perf_counter() - start


def candidates() -> dict[str, Callable[[], Any] | None]:
    found: dict[str, Callable[[], Any] | None] = {
        "read only (baseline)": None,
        "hashlib.blake2b": hashlib.blake2b,
        "hashlib.sha256": hashlib.sha256,
    }
    try:
        import xxhash

        found["xxhash.xxh3_64"] = xxhash.xxh3_64
        found["xxhash.xxh3_128"] = xxhash.xxh3_128
    except ImportError:
        print("xxhash not installed: skipped", file=sys.stderr)
    try:
        import blake3

        found["blake3 (1 thread)"] = blake3.blake3
        found["blake3 (all threads)"] = lambda: blake3.blake3(max_threads=blake3.blake3.AUTO)
    except ImportError:
        print("blake3 not installed (pip install blake3): skipped", file=sys.stderr)
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gb", type=float, default=2.7)
    ap.add_argument("--file", type=Path)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="checksum-bench-") as tmp:
        path = args.file or Path(tmp) / "vectors.bin"
        if args.file is None:
            print(f"writing {args.gb} GB of float32 vectors to {path} ...")
            _write_vectors(path, args.gb)
        size = path.stat().st_size
        print(f"file: {size / 1e9:.2f} GB; load: {os.getloadavg()[0]:.2f} (1-min average)")
        _stream(path, None)  # warm the page cache
        rows: list[tuple[str, float]] = []
        for name, make in candidates().items():
            best = float("inf")
            for _ in range(args.rounds):
                hasher = make() if make is not None else None
                best = min(best, _stream(path, hasher.update if hasher is not None else None))
            rows.append((name, best))
        base = rows[0][1]
        print(f"{'candidate':24} {'seconds':>8} {'GB/s':>7} {'x read time':>12}")
        for name, seconds in rows:
            print(f"{name:24} {seconds:8.2f} {size / 1e9 / seconds:7.2f} {seconds / base:12.2f}")


if __name__ == "__main__":
    main()
