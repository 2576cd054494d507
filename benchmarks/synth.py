"""Full-scale synthetic corpus run: wall time, sizes and per-sport averages vs Table 37."""

from __future__ import annotations

import argparse
import os
import shutil
import time
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn
from rich.table import Table

from playscout.synthetic import generate_corpus, generate_questions

PAPER = {  # Table 37: games, clips, avg clips/game, avg clip s, players, teams, reports, stat docs
    "basketball": (3307, 854949, 258.5, 10.9, 952, 30, 3307, 9547),
    "hockey": (2482, 715574, 288.3, 12.1, 1533, 32, 2482, 9130),
    "soccer": (1641, 189707, 115.6, 12.9, 2031, 51, 1070, 7771),
}


def _du(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=7430)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--questions", type=int, default=334, help="per sport; 0 skips")
    ap.add_argument("--keep", action="store_true", help="keep the corpus afterwards")
    args = ap.parse_args()
    con = Console()
    with Progress(
        "[bold]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=con,
    ) as bar:
        tasks: dict[str, int] = {}

        def progress(sport: str, done: int, total: int) -> None:
            if sport not in tasks:
                tasks[sport] = bar.add_task(sport, total=total)
            if done % 25 == 0 or done == total:
                bar.update(tasks[sport], completed=done)

        summary = generate_corpus(
            args.out, args.games, seed=args.seed, workers=args.workers, progress=progress
        )
    size = _du(args.out)
    table = Table(
        title=f"synth corpus: {args.games} games in {summary.wall_seconds:.1f} s "
        f"({os.cpu_count()} CPUs), {size / 1e9:.2f} GB"
    )
    for col in (
        "sport",
        "games",
        "clips (paper)",
        "clips/game (paper)",
        "avg clip s (paper)",
        "players (paper)",
        "teams (paper)",
        "reports (paper)",
        "stat docs (paper)",
        "s",
    ):
        table.add_column(col)
    for sport, s in summary.sports.items():
        p = PAPER[sport]
        meta_clip_s = _avg_clip_seconds(args.out / "data" / sport)
        table.add_row(
            sport,
            str(s.games),
            f"{s.clips} ({p[1]})",
            f"{s.clips / max(1, s.games):.1f} ({p[2]})",
            f"{meta_clip_s:.2f} ({p[3]})",
            f"{s.players} ({p[4]})",
            f"{s.teams} ({p[5]})",
            f"{s.reports} ({p[6]})",
            f"{s.documents - s.reports} ({p[7]})",
            f"{s.seconds:.1f}",
        )
    con.print(table)
    total_docs = sum(s.documents for s in summary.sports.values())
    con.print(
        f"total clips {sum(s.clips for s in summary.sports.values())}, documents "
        f"{total_docs}, player-seasons "
        f"{sum(s.player_seasons for s in summary.sports.values())}, team-seasons "
        f"{sum(s.team_seasons for s in summary.sports.values())}"
    )
    if args.questions:
        t0 = time.perf_counter()
        counts = generate_questions(args.out, args.questions, seed=args.seed)
        con.print(f"questions {counts} in {time.perf_counter() - t0:.1f} s")
    if not args.keep:
        shutil.rmtree(args.out)


def _avg_clip_seconds(sport_dir: Path, sample: int = 200) -> float:
    import orjson

    meta = orjson.loads((sport_dir / "metadata.json").read_bytes())
    total = n = 0.0
    for files in list(meta.values())[:: max(1, len(meta) // sample)]:
        if files.get("clips_metadata"):
            w = orjson.loads((sport_dir / files["clips_metadata"]).read_bytes())["windows"]
            for x in w.values():
                total += x["video_window"]["end"] - x["video_window"]["start"]
                n += 1
    return total / n if n else 0.0


if __name__ == "__main__":
    main()
