"""Short broadcast clips as separate MP4 files, the shape of the T9 release's clip videos: for
measuring and testing what reads clip files (the frame pipeline, `index embed --what clips`,
benchmarks/gpu.py) on real encoded video rather than arrays."""

from __future__ import annotations

import json
from pathlib import Path

from playscout.media.cut import Window, cut_clips
from playscout.synthetic.broadcast.broadcast import render_game


def render_clip_files(
    out_dir: Path,
    clips: int,
    seconds: float = 4.0,
    size: tuple[int, int] = (640, 360),
    fps: int = 25,
    seed: int = 0,
    sport: str | None = None,
) -> list[Path]:
    """`clips` consecutive clips of `seconds` each from one synthetic game's broadcast (of
    `sport`, else the first sport by name), written as `out_dir/clips/{game}_{i}.mp4`; returns
    their paths in order."""
    from playscout.synthetic import generate_corpus
    from playscout.synthetic.sports import SPECS

    sport = sport or sorted(SPECS)[0]

    out_dir = Path(out_dir)
    corpus = out_dir / "corpus"
    generate_corpus(corpus, 1, sports=[sport], seed=seed, workers=1)
    meta = json.loads((corpus / "data" / sport / "metadata.json").read_text())
    files = next(iter(meta.values()))
    pbp = json.loads((corpus / "data" / sport / files["play_by_play"]).read_text())
    render = render_game(
        pbp,
        out_dir / "video",
        duration=clips * seconds,
        fps=fps,
        size=size,
        seed=seed,
        commentary=False,
    )
    gid = render.game_id
    windows = [Window(f"{gid}_{i}", i * seconds, (i + 1) * seconds) for i in range(clips)]
    cut = cut_clips(Path(render.video), windows, out_dir / "clips", max_embed_frames=1)
    return [cut.files[w.clip_id] for w in windows if w.clip_id in cut.files]
