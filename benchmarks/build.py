"""`corpus synth` + `index build` at a given size, through playscout's own CLI, with the stage
table the build records (issue 36): clips/s per stage, the processes that handled records,
the GPU's busy share (sampled with nvidia-smi, when there is one), the load of the machine,
and the projection to the T9 release's 1,760,230 clips.

Before/after comparisons: `--tree NAME=DIR` runs the build with the playscout package of
another source tree (e.g. `git archive main playscout | tar -x -C /tmp/main`), alternated
with this tree's run `--repeat` times, because the machine is shared and its load moves.
Every result is appended to `--results` (JSON lines) as it comes.

    .venv/bin/python benchmarks/build.py --games 100 [--tree before=/tmp/main] [--repeat 2]
        [--device auto|cpu|cuda] [--workers N] [--results var/build-bench.jsonl]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
T9_CLIPS = 1_760_230


class GpuSampler:
    """The GPU's utilisation every 200 ms from nvidia-smi while a build runs; None without
    one."""

    def __init__(self) -> None:
        self.samples: list[float] = []
        self._proc: subprocess.Popen[str] | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> GpuSampler:
        if shutil.which("nvidia-smi"):
            cmd = ["nvidia-smi", "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits"]
            self._proc = subprocess.Popen([*cmd, "-lms", "200"], stdout=subprocess.PIPE, text=True)
            self._thread = threading.Thread(target=self._read, daemon=True)
            self._thread.start()
        return self

    def _read(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        for line in self._proc.stdout:
            try:
                self.samples.append(float(line.split(",")[0]))
            except ValueError:
                continue

    def __exit__(self, *exc: object) -> None:
        if self._proc is not None:
            self._proc.terminate()
            self._proc.wait(timeout=10)

    def busy_share(self) -> float | None:
        return sum(self.samples) / len(self.samples) / 100 if self.samples else None


def playscout_cmd(tree: Path | None) -> tuple[list[str], dict[str, str], Path]:
    """The CLI of this tree, or of `tree`'s playscout package (run from a folder where the
    current directory cannot shadow it)."""
    env = dict(os.environ)
    if tree is None:
        return [sys.executable, "-m", "playscout"], env, ROOT
    env["PYTHONPATH"] = str(tree)
    return [sys.executable, "-m", "playscout"], env, Path(tempfile.gettempdir())


def synth(corpus: Path, games: int, seed: int) -> dict[str, Any]:
    cmd, env, cwd = playscout_cmd(None)
    started = time.perf_counter()
    args = [*cmd, "corpus", "synth", "--out", str(corpus), "--games", str(games)]
    done = subprocess.run(
        [*args, "--seed", str(seed), "--json"],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(done.stdout)
    report["bench_seconds"] = time.perf_counter() - started
    return report


def build(
    corpus: Path, out: Path, tree: Path | None, device: str, workers: int | None
) -> dict[str, Any]:
    cmd, env, cwd = playscout_cmd(tree)
    args = [*cmd, "index", "build", "--corpus", str(corpus), "--out", str(out)]
    args += ["--overwrite", "--json", "--device", device]
    if workers is not None:
        args += ["--workers", str(workers)]
    load = os.getloadavg()[0]
    cpu0 = os.times()
    started = time.perf_counter()
    with GpuSampler() as gpu:
        done = subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - started
    cpu1 = os.times()
    if done.returncode:
        raise SystemExit(f"index build failed:\n{done.stderr[-2000:]}")
    report = json.loads(done.stdout)
    child_cpu = (cpu1.children_user - cpu0.children_user) + (
        cpu1.children_system - cpu0.children_system
    )
    return {
        "wall_seconds": round(wall, 2),
        "cores_used": round(child_cpu / wall, 2),
        "load_before": round(load, 2),
        "load_after": round(os.getloadavg()[0], 2),
        "gpu_busy_share": gpu.busy_share(),
        "report": report,
    }


def stage_table(name: str, result: dict[str, Any]) -> list[str]:
    """One line per sport and stage: seconds, items, items/s (busy time of that stage)."""
    report = result["report"]
    lines = []
    clips = 0
    for sport, info in report["sports"].items():
        clips += int(info.get("clips", 0))
        stages = info.get("stages") or {}
        parts = [f"{sport:<11} {info.get('clips', 0):>8,} clips {info['build_seconds']:>8.1f} s"]
        for stage, entry in stages.items():
            if isinstance(entry, dict):
                rate = f" {entry['per_second']:,.0f}/s" if "per_second" in entry else ""
                parts.append(f"{stage} {entry['seconds']:.1f}s{rate}")
        if "records_processes" in stages:
            parts.append(f"record processes {stages['records_processes']}")
        lines.append(f"  [{name}] " + " | ".join(parts))
    wall = result["wall_seconds"]
    gpu = result["gpu_busy_share"]
    lines.append(
        f"  [{name}] total {clips:,} clips in {wall:.1f} s = {clips / wall:,.0f} clips/s; "
        f"cores used {result['cores_used']}; load {result['load_before']} -> "
        f"{result['load_after']}; GPU busy {'n/a' if gpu is None else f'{gpu:.0%}'}; "
        f"projected to {T9_CLIPS:,} clips: {T9_CLIPS / clips * wall / 60:.1f} min"
    )
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--workers", type=int, default=None, help="index build --workers")
    ap.add_argument("--tree", action="append", default=[], help="NAME=DIR of another tree")
    ap.add_argument("--only-trees", action="store_true", help="not this tree, only --tree's")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--work", type=Path, default=None, help="scratch dir (default: temp)")
    ap.add_argument("--results", type=Path, default=None, help="append JSON lines here")
    args = ap.parse_args(argv)
    work = (args.work or Path(tempfile.mkdtemp(prefix="playscout-build-bench-"))).resolve()
    work.mkdir(parents=True, exist_ok=True)
    corpus = work / f"corpus-{args.games}-{args.seed}"
    if not corpus.is_dir():
        made = synth(corpus, args.games, args.seed)
        print(f"corpus synth: {args.games} games in {made['bench_seconds']:.1f} s", flush=True)
    trees: list[tuple[str, Path | None]] = []
    for spec in args.tree:
        name, _, where = spec.partition("=")
        trees.append((name, Path(where).resolve()))
    if not args.only_trees:
        trees.append(("this", None))
    print(f"benchmarks/build.py: {args.games} games, device {args.device}, {os.cpu_count()} cores")
    for round_ in range(args.repeat):
        for name, tree in trees:
            workers = args.workers if name != "before" else None  # main may not have it
            result = build(corpus, work / f"index-{name}", tree, args.device, workers)
            for line in stage_table(name, result):
                print(line, flush=True)
            if args.results:
                args.results.parent.mkdir(parents=True, exist_ok=True)
                with args.results.open("a") as fh:
                    row = {"tree": name, "round": round_, "games": args.games, **result}
                    fh.write(json.dumps(row) + "\n")
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
