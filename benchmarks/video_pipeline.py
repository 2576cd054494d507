"""`index videos` per stage on rendered broadcasts: x real time of every stage, and alignment
accuracy against the renderer's truth, before and after the commentary refinement.

    python benchmarks/video_pipeline.py --videos DIR [--games 400000,500000] [--no-speech]
        [--visual none|tiny]

DIR holds `{game_id}.mp4`, `{game_id}.pbp.json` and `{game_id}.truth.json` as written by
`playscout corpus render`. Each game is indexed into its own fresh corpus. The baseline, measured
in the same run, is the video's own length (x real time = video seconds / wall seconds) and the
decode-only pass over the same file.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import playscout  # noqa: F401 - installs the torchvision shim before open_clip loads


def decode_only(video: Path) -> float:
    """Seconds to decode every frame (the floor under every frame-reading stage)."""
    import av

    t0 = time.perf_counter()
    with av.open(str(video)) as c:
        s = c.streams.video[0]
        s.thread_type = "AUTO"
        for _ in c.decode(s):
            pass
    return time.perf_counter() - t0


def run_game(
    video_dir: Path, game_id: str, speech: bool, visual: dict[str, Any] | None
) -> dict[str, Any]:
    from playscout.corpus.pbp import load_pbp
    from playscout.indexer.video.pipeline import VideoIndexOptions, index_videos
    from playscout.indexer.video.scoreboard import evaluate_alignment
    from playscout.indexer.video.scoreboard.models import AlignmentResult

    work = Path(tempfile.mkdtemp(prefix="vp-"))
    try:
        pbp = load_pbp(video_dir / f"{game_id}.pbp.json")
        game = pbp[0]
        corpus = work / "corpus"
        opts = VideoIndexOptions(speech=speech, visual_model=visual)
        summary = index_videos(video_dir, video_dir / f"{game_id}.pbp.json", corpus, opts)
        g = summary.games[0]
        aligned = AlignmentResult.model_validate_json(
            (corpus / "data" / game.sport / "games" / game_id / "alignment.json").read_bytes()
        )
        truth = video_dir / f"{game_id}.truth.json"
        acc = evaluate_alignment(aligned, truth)
        row: dict[str, Any] = {
            "game": game_id,
            "sport": game.sport,
            "video_s": g.video_seconds,
            "clips": g.clips,
            "events_in_video": acc["events"],
            "within_1s": acc.get("within_1s"),
            "within_0.5s": acc.get("within_0.5s"),
            "status": {"aligned": g.aligned, "ambiguous": g.ambiguous, "unaligned": g.unaligned},
            "placed_by_commentary": g.placed_by_commentary,
            "misses_by_type": acc.get("misses_by_type"),
            "stage_seconds": g.stages.seconds,
            "stage_x_real_time": {
                k: round(g.video_seconds / v, 1) for k, v in g.stages.seconds.items() if v > 0
            },
            "total_seconds": summary.wall_seconds,
            "total_x_real_time": round(g.video_seconds / summary.wall_seconds, 1),
        }
        row["decode_only_seconds"] = round(decode_only(Path(g.video)), 1)
        return row
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--videos", type=Path, required=True)
    ap.add_argument("--games", default="", help="comma-separated ids; default: every video")
    ap.add_argument("--no-speech", action="store_true")
    ap.add_argument("--visual", default="tiny", choices=["none", "tiny"])
    ap.add_argument("--out", type=Path, help="also write the rows as JSON here")
    args = ap.parse_args()
    ids = [g for g in args.games.split(",") if g] or sorted(
        p.stem for p in args.videos.glob("*.mp4")
    )
    visual = None
    if args.visual == "tiny":
        from playscout.embed.open_clip import make_tiny_weights

        weights = Path(tempfile.mkdtemp(prefix="clip-")) / "tiny.pt"
        make_tiny_weights(weights, seed=0)
        visual = {
            "kind": "open_clip",
            "model": "playscout-tiny",
            "options": {"pretrained": str(weights)},
        }
        print("visual embeddings: playscout-tiny, RANDOM weights (speed only)", file=sys.stderr)
    rows = []
    for gid in ids:
        row = run_game(args.videos, gid, not args.no_speech, visual)
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
