"""`make demo`'s cost as a newcomer pays it: a fresh `playscout demo --out TMP` in its own
process, N times, with the wall time, the CPU seconds (user + system of the process and its
children) and the load average before and after each run. The machine is shared: a number
means little without the load beside it.

    .venv/bin/python benchmarks/demo.py --runs 3
    .venv/bin/python benchmarks/demo.py --runs 3 --burners 4   # under a load of 4 more
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _burn(stop: float) -> None:
    """One busy process: a CPU-bound neighbour, as a loaded machine has."""
    x = 0
    while time.time() < stop:
        x = (x * 31 + 7) % 1_000_003


def one_run(extra: list[str]) -> tuple[float, float, tuple[float, ...], tuple[float, ...], int]:
    with tempfile.TemporaryDirectory(prefix="playscout-demo-") as tmp:
        before = os.getloadavg()
        cpu0, t0 = _children_cpu(), time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "playscout", "demo", "--out", str(Path(tmp) / "demo"), *extra],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        wall, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
        return wall, cpu, before, os.getloadavg(), done.returncode


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--burners", type=int, default=0, help="busy processes beside the runs")
    ap.add_argument("demo_args", nargs="*", help="extra `playscout demo` arguments (after --)")
    args = ap.parse_args()
    burners: list[mp.Process] = []
    if args.burners:
        stop = time.time() + 3600
        burners = [mp.Process(target=_burn, args=(stop,), daemon=True) for _ in range(args.burners)]
        for p in burners:
            p.start()
        time.sleep(5)  # let the load average notice them
    walls, cpus = [], []
    try:
        for i in range(args.runs):
            wall, cpu, before, after, rc = one_run(args.demo_args)
            if rc != 0:
                sys.exit(f"run {i + 1}: playscout demo exited {rc}")
            walls.append(wall)
            cpus.append(cpu)
            print(
                f"run {i + 1}: wall {wall:.1f} s, CPU {cpu:.1f} s, load average "
                f"{before[0]:.2f} before, {after[0]:.2f} after (1-min)",
                flush=True,
            )
    finally:
        for p in burners:
            p.terminate()
    print(
        f"median of {args.runs}: wall {statistics.median(walls):.1f} s, "
        f"CPU {statistics.median(cpus):.1f} s ({args.burners} burners, {os.cpu_count()} cores)"
    )


if __name__ == "__main__":
    main()
