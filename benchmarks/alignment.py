"""Scoreboard reading + play-by-play alignment on rendered broadcasts: accuracy and throughput.

Renders games of a synthetic corpus (one excerpt per sport by default, whole games with --full)
or reads a directory of rendered videos (--videos DIR with {gid}.mp4/.pbp.json/.truth.json), then
runs the alignment stage (decode + locate + OCR + timeline + align) and prints, per video and per
sport: events, share placed within ±0.5/1/2 s, OCR state accuracy, video seconds, wall seconds
and throughput as x real time (video-hours per wall-hour). Only measured numbers are printed;
runs started while the machine was busy (1-min load average above --busy) are marked LOADED.

    .venv/bin/python benchmarks/alignment.py                 # 600 s excerpt per sport
    .venv/bin/python benchmarks/alignment.py --full --keep /tmp/games
    .venv/bin/python benchmarks/alignment.py --videos /tmp/games
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson
from rich.console import Console
from rich.table import Table

from playscout.corpus.pbp import load_pbp
from playscout.indexer.video.scoreboard import align_events, evaluate_alignment, read_scoreboard
from playscout.perception.ocr import get_engine
from playscout.synthetic.sports import spec_names


def _render(args: argparse.Namespace, out: Path, con: Console) -> list[Path]:
    from playscout.synthetic import generate_corpus
    from playscout.synthetic.broadcast import corpus_games, render_game

    corpus = out / "corpus"
    generate_corpus(corpus, max(7, 3 * args.games), seed=args.seed, workers=1)
    videos: list[Path] = []
    for sport in args.sports:
        for path in corpus_games(corpus, sport)[: args.games]:
            pbp = orjson.loads(path.read_bytes())
            if args.full:
                start, duration = 0.0, None
            else:
                start = min(args.start, max(0.0, pbp["video_duration"] - args.duration))
                duration = args.duration
            t0 = time.perf_counter()
            res = render_game(
                pbp, out, start=start, duration=duration, seed=args.seed, commentary=False
            )
            con.print(
                f"rendered {sport} {res.game_id}: {res.duration:.0f} s of video in "
                f"{time.perf_counter() - t0:.0f} s"
            )
            videos.append(Path(res.video))
    return videos


def _run(video: Path, args: argparse.Namespace) -> dict[str, Any]:
    game = load_pbp(video.with_suffix(".pbp.json"))[0]
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    timeline = read_scoreboard(
        video, game.sport, sample_fps=args.sample_fps, engine=args.engine, glyphs=not args.no_glyphs
    )
    t1 = time.perf_counter()
    result = align_events(timeline, game)
    t2 = time.perf_counter()
    wall = t2 - t0
    ev = evaluate_alignment(result, video.with_suffix(".truth.json"), timeline)
    st = timeline.stats
    return {
        "video": video.name,
        "sport": game.sport,
        "events": ev["events"],
        "within_0.5s": ev["within_0.5s"],
        "within_1s": ev["within_1s"],
        "within_2s": ev["within_2s"],
        "state_accuracy": ev["state_accuracy"],
        "reading_accuracy": ev["reading_accuracy"],
        "misses_by_type": ev["misses_by_type"],
        "counts": result.counts,
        "video_s": timeline.duration,
        "wall_s": wall,
        "align_s": t2 - t1,
        "x_realtime": timeline.duration / wall,
        "stages": st.seconds,
        "frames_decoded": st.frames_decoded,
        "crops_ocr": st.crops_ocr,
        "crops_glyph": st.crops_glyph,
        "crops_unchanged": st.crops_unchanged,
        "crops_occluded": st.crops_occluded,
        "readings_rejected": st.readings_rejected,
        "load_before": load,
        "loaded": load > args.busy,
    }


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.2f}%"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--videos", type=Path, help="directory of rendered {gid}.mp4 (+ .pbp/.truth)")
    ap.add_argument("--full", action="store_true", help="render whole games, not excerpts")
    ap.add_argument("--sports", nargs="+", default=list(spec_names()), choices=spec_names())
    ap.add_argument("--games", type=int, default=1, help="games per sport to render")
    ap.add_argument("--start", type=float, default=600.0, help="excerpt start (s of game video)")
    ap.add_argument("--duration", type=float, default=600.0, help="excerpt length (s)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--engine", default="ppocr", choices=("ppocr", "tesseract"))
    ap.add_argument("--sample-fps", type=float, default=5.0)
    ap.add_argument("--no-glyphs", action="store_true", help="OCR every changed field")
    ap.add_argument(
        "--busy", type=float, default=0.7, help="1-min load above which a run is LOADED"
    )
    ap.add_argument("--keep", type=Path, help="render into this directory and keep it")
    ap.add_argument("--json", type=Path, help="also write the rows as JSON")
    args = ap.parse_args()
    con = Console(width=200)

    tmp: Path | None = None
    if args.videos:
        videos = sorted(args.videos.glob("*.mp4"))
    else:
        out = args.keep or Path(tempfile.mkdtemp(prefix="alignment-bench-"))
        tmp = None if args.keep else out
        out.mkdir(parents=True, exist_ok=True)
        videos = _render(args, out, con)
    if not videos:
        raise SystemExit("no videos to read")
    t0 = time.perf_counter()
    get_engine(args.engine)  # model load, once per process (not per video)
    con.print(f"OCR engine {args.engine} loaded in {time.perf_counter() - t0:.2f} s")

    rows = []
    for video in videos:
        row = _run(video, args)
        rows.append(row)
        flag = " LOADED" if row["loaded"] else ""
        con.print(
            f"{row['sport']:<10} {row['video']:<14} events {row['events']:>4}  ±1 s "
            f"{_pct(row['within_1s'])}  state {_pct(row['state_accuracy'])}  video "
            f"{row['video_s']:.0f} s  wall {row['wall_s']:.1f} s  {row['x_realtime']:.1f}x  "
            f"(load {row['load_before']:.2f}){flag}"
        )
    glyphs = "no glyph bank" if args.no_glyphs else "glyph bank"
    table = Table(
        title=f"alignment stage on {os.cpu_count()} CPUs "
        f"({args.engine}, {glyphs}, {args.sample_fps:g} fps)"
    )
    for col in (
        "sport",
        "videos",
        "events",
        "±0.5 s",
        "±1 s",
        "±2 s",
        "state acc",
        "video s",
        "wall s",
        "x real time",
        "OCR crops",
        "glyph reads",
        "misses (type: n)",
        "loaded",
    ):
        table.add_column(col)
    for sport in spec_names():
        rs = [r for r in rows if r["sport"] == sport]
        if not rs:
            continue
        n = sum(r["events"] for r in rs)

        def share(key: str, rs: list[dict[str, Any]] = rs, n: int = n) -> float | None:
            return sum((r[key] or 0) * r["events"] for r in rs) / n if n else None

        vis = [r["state_accuracy"] for r in rs if r["state_accuracy"] is not None]
        video_s = sum(r["video_s"] for r in rs)
        wall_s = sum(r["wall_s"] for r in rs)
        misses: dict[str, int] = {}
        for r in rs:
            for k, v in r["misses_by_type"].items():
                misses[k] = misses.get(k, 0) + v
        table.add_row(
            sport,
            str(len(rs)),
            str(n),
            _pct(share("within_0.5s")),
            _pct(share("within_1s")),
            _pct(share("within_2s")),
            _pct(sum(vis) / len(vis) if vis else None),
            f"{video_s:.0f}",
            f"{wall_s:.1f}",
            f"{video_s / wall_s:.1f}",
            str(sum(r["crops_ocr"] for r in rs)),
            str(sum(r["crops_glyph"] for r in rs)),
            ", ".join(f"{k}: {v}" for k, v in misses.items()) or "-",
            "yes" if any(r["loaded"] for r in rs) else "no",
        )
    con.print(table)
    for r in rows:
        con.print(
            f"{r['video']}: stages {r['stages']}, align {r['align_s']:.2f} s, "
            f"statuses {r['counts']}"
        )
    if args.json:
        args.json.write_bytes(orjson.dumps(rows, option=orjson.OPT_INDENT_2))
    if tmp is not None:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
