"""What a cold CLI command costs: each command run N times as a fresh process (wall seconds,
user+sys CPU seconds and peak RSS of the child, as `/usr/bin/time -v` reports them), median
of N, with the load average before and after (issue 29).

    python benchmarks/cold_cli.py [--runs 5] [--index var/demo/index] [--corpus var/demo/corpus]
        [--baseline-tree DIR] [--only NAME ...] [--json]

The commands: `playscout --help`, `search documents`, `search videos` (oracle: the demo index
has no video vectors), and `ask --policy workflow` on the corpus's first basketball question.
Build the demo index first with `python -m playscout demo --out var/demo`.

Baselines, measured in the same run and interleaved with the commands (so a change of load
hits both alike): `import sentence_transformers` (after `import playscout`, whose torchvision
hook it needs), the cost every command paid before queries were embedded without torch; and,
with --baseline-tree DIR, the same commands run from another checkout of playscout (e.g.
`git worktree add /tmp/before <commit>`), reported as a ratio against it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GOAL_WALL_S, GOAL_CPU_S = 1.5, 1.0  # per search, on a quiet machine (issue 29)


@dataclass(frozen=True)
class Sample:
    wall_s: float
    cpu_s: float
    max_rss_mb: float


def run_once(argv: list[str], tree: Path) -> Sample:
    """One cold process run in `tree` (`python -m` puts the working directory first on the
    path): its own wall clock, CPU (user + sys) and peak RSS from wait4."""
    env = {**os.environ, "PYTHONPATH": str(tree), "COLUMNS": "100"}
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        tail = err.decode(errors="replace").strip().splitlines()[-1:] or ["(no stderr)"]
        raise SystemExit(f"{' '.join(argv[2:])} exited {proc.returncode}: {tail[0]}")
    return Sample(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def first_question(corpus: Path) -> str:
    path = corpus / "questions" / "basketball.json"
    if not path.is_file():
        raise SystemExit(f"{path} is missing: build the demo with `python -m playscout demo`")
    return str(json.loads(path.read_text())[0]["question"])


def commands(index: Path, corpus: Path) -> dict[str, list[str]]:
    cli = [sys.executable, "-m", "playscout"]
    return {
        "help": [*cli, "--help"],
        "search documents": [
            *cli, "search", "documents", "fourth straight win",
            "--index", str(index), "--sport", "basketball",
        ],
        "search videos": [
            *cli, "search", "videos", "step-back three", "--index", str(index),
            "--sport", "basketball", "--mode", "oracle", "--quarter", "4",
        ],
        "ask --policy workflow": [
            *cli, "ask", first_question(corpus), "--index", str(index), "--corpus", str(corpus),
            "--sport", "basketball", "--mode", "oracle", "--policy", "workflow",
        ],
    }  # fmt: skip


def median(samples: list[Sample]) -> Sample:
    return Sample(
        statistics.median(s.wall_s for s in samples),
        statistics.median(s.cpu_s for s in samples),
        statistics.median(s.max_rss_mb for s in samples),
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--index", type=Path, default=ROOT / "var" / "demo" / "index")
    ap.add_argument("--corpus", type=Path, default=ROOT / "var" / "demo" / "corpus")
    ap.add_argument("--baseline-tree", type=Path, help="another checkout to compare against")
    ap.add_argument("--only", nargs="*", help="command names to run (default: all)")
    ap.add_argument("--json", action="store_true", help="print one JSON document")
    args = ap.parse_args()
    if not (args.index / "manifest.json").is_file():
        raise SystemExit(f"no index at {args.index}: run `python -m playscout demo --out var/demo`")
    cmds = commands(args.index.resolve(), args.corpus.resolve())
    if args.only:
        unknown = sorted(set(args.only) - set(cmds))
        if unknown:
            raise SystemExit(f"unknown command(s) {unknown}; known: {sorted(cmds)}")
        cmds = {k: v for k, v in cmds.items() if k in args.only}
    # (label, argv, tree): interleaved round by round
    jobs: list[tuple[str, list[str], Path]] = [(name, argv, ROOT) for name, argv in cmds.items()]
    gone = [sys.executable, "-c", "import playscout, sentence_transformers"]
    jobs.append(("baseline: import sentence_transformers", gone, ROOT))
    if args.baseline_tree is not None:
        tree = args.baseline_tree.resolve()
        if not (tree / "playscout" / "__init__.py").is_file():
            raise SystemExit(f"--baseline-tree {tree}: no playscout package there")
        jobs += [(f"baseline: {name}", argv, tree) for name, argv in cmds.items()]
    load_before = os.getloadavg()
    samples: dict[str, list[Sample]] = {label: [] for label, _, _ in jobs}
    for _ in range(args.runs):
        for label, argv, tree in jobs:
            samples[label].append(run_once(argv, tree))
    load_after = os.getloadavg()
    med = {label: median(s) for label, s in samples.items()}
    report: dict[str, Any] = {
        "runs": args.runs,
        "cpus": os.cpu_count(),
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in load_after],
        "median": {k: vars(v) for k, v in med.items()},
    }
    if args.baseline_tree is not None:
        report["ratio_vs_baseline_tree"] = {
            name: {
                "wall": med[name].wall_s / med[f"baseline: {name}"].wall_s,
                "cpu": med[name].cpu_s / med[f"baseline: {name}"].cpu_s,
            }
            for name in cmds
        }
    if args.json:
        print(json.dumps(report, indent=1))
        return
    print(f"{args.runs} cold runs each, median; {os.cpu_count()} CPUs; load average (1/5/15 min) "
          f"{report['load_before']} before, {report['load_after']} after")  # fmt: skip
    print(f"{'command':42} {'wall s':>8} {'CPU s':>8} {'max RSS MB':>11}")
    for label, m in med.items():
        print(f"{label:42} {m.wall_s:8.2f} {m.cpu_s:8.2f} {m.max_rss_mb:11.0f}")
    for name, r in report.get("ratio_vs_baseline_tree", {}).items():
        print(f"{name}: {r['wall']:.2f}x the baseline tree's wall, {r['cpu']:.2f}x its CPU")
    print(f"goal per search on a quiet machine: <= {GOAL_WALL_S} s wall, <= {GOAL_CPU_S} CPU-s")


if __name__ == "__main__":
    main()
