"""T7 motion-conditioned generation, its metric: tracker-matched video mIoU of box tracks. The
stack has no video generator, so (stated in every record) the prediction is a baseline: a
straight-line interpolation between each track's first and last box. On the synthetic corpus
(T7Task) the ground truth is a seeded curved track per player of a clip (the corpus has no
boxes); on the published MOT track files (T7Published) it is the real tracks. A metric
plumbing check, not a generation result."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from playscout.eval.errors import DataFormatError
from playscout.eval.judging.metrics import mean_video_miou, video_miou
from playscout.eval.judging.metrics.boxes import Box
from playscout.eval.storage.records import Outcome, ResultRow
from playscout.eval.tasks.reading import read_text
from playscout.eval.tasks.registry import declare
from playscout.eval.tasks.svi import sport_of
from playscout.eval.tasks.synthetic import SYNTHETIC, clip_facts, rng_for
from playscout.eval.tasks.task import Format, Instance, Needs, Task, TaskEnv

FRAMES = 81  # 5.4 s at 15 fps, as the T7 outputs


def synthetic_tracks(
    clip_id: str, players: int = 3, frames: int = FRAMES
) -> dict[str, dict[int, Box]]:
    rng = rng_for(clip_id, "tracks")
    tracks: dict[str, dict[int, Box]] = {}
    for p in range(players):
        x0, y0 = rng.uniform(0.1, 0.7), rng.uniform(0.1, 0.7)
        dx, dy, bend = rng.uniform(-0.2, 0.2), rng.uniform(-0.2, 0.2), rng.uniform(0.02, 0.08)
        w, h = rng.uniform(0.05, 0.1), rng.uniform(0.1, 0.2)
        track = {}
        for f in range(frames):
            t = f / (frames - 1)
            x = x0 + dx * t + bend * math.sin(math.pi * t)
            y = y0 + dy * t
            track[f] = (x, y, x + w, y + h)
        tracks[f"p{p}"] = track
    return tracks


def linear_prediction(gold: dict[str, dict[int, Box]]) -> dict[str, dict[int, Box]]:
    out: dict[str, dict[int, Box]] = {}
    for pid, track in gold.items():
        f0, f1 = min(track), max(track)
        a, b = track[f0], track[f1]
        out[pid] = {
            f: tuple(a[i] + (b[i] - a[i]) * (f - f0) / (f1 - f0) for i in range(4))  # type: ignore[misc]
            for f in track
        }
    return out


class T7Task(Task):
    name = "t7"
    stand_in = SYNTHETIC  # said in every report's heading
    description = "Motion-conditioned generation metric: video mIoU of box tracks (synthetic)."
    needs_index = False
    calls: frozenset[str] = frozenset()

    def questions(self, env: TaskEnv, sports: Sequence[str], limit: int | None) -> list[Instance]:
        out: list[Instance] = []
        for sport in sports:
            for f in clip_facts(env.need_corpus(), sport, max_games=1)[: limit or 5]:
                out.append(
                    Instance(
                        f"t7_{f.clip_id}",
                        sport,
                        f"tracks for {f.clip_id}",
                        None,
                        {"clip_id": f.clip_id},
                    )
                )
        return out

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        gold = synthetic_tracks(inst.meta["clip_id"])
        scored = video_miou(gold, linear_prediction(gold))
        if scored is None:  # no track matched: the reference leaves the video out of the mean
            return Outcome(answer=None, status="no_answer", turns=0, note=SYNTHETIC)
        miou = scored.miou
        return Outcome(
            answer=f"mIoU {miou:.3f}", status="answered", miou=miou, turns=0, note=SYNTHETIC
        )

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        """The reference's summary: mean holistic mIoU over matched videos, failures apart."""
        return {**mean_video_miou([r.miou for r in records]), "note": SYNTHETIC}


def t7_tracks(path: Path) -> list[Instance]:
    """T7 bboxes: MOT-style text files (frame, track, x1, y1, x2, y2, conf, -1, -1, -1,
    normalised), one clip each; a folder holds many."""
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    if not files:
        raise DataFormatError(f"{path.name}: no track files")
    return [
        Instance(
            f"t7_{f.stem}",
            sport_of(*f.parts),
            f"tracks of {f.stem}",
            _mot_tracks(f),
            {"file": f.name},
        )
        for f in files
    ]


def tracks(
    gold: dict[str, list[list[float]]],
) -> dict[str, dict[int, tuple[float, float, float, float]]]:
    """A T7 item's gold ({track: [[frame, x1, y1, x2, y2], ...]}, as stored) as metric tracks."""
    return {tid: {int(r[0]): (r[1], r[2], r[3], r[4]) for r in rows} for tid, rows in gold.items()}


def _mot_tracks(path: Path) -> dict[str, list[list[float]]]:
    """{track id: [[frame, x1, y1, x2, y2], ...]}: JSON as it is stored in results.jsonl."""
    rows: dict[str, dict[int, list[float]]] = {}
    for n, line in enumerate(read_text(path).splitlines(), 1):
        if not line.strip():
            continue
        parts = [p.strip() for p in line.split(",")]
        try:
            if len(parts) < 6:
                raise ValueError("fewer than 6 fields")
            frame, tid = int(float(parts[0])), str(int(float(parts[1])))
            box = (float(parts[2]), float(parts[3]), float(parts[4]), float(parts[5]))
        except ValueError as e:
            raise DataFormatError(
                f"{path.name}: line {n}: not 'frame,track,x1,y1,x2,y2,...' ({e})"
            ) from None
        rows.setdefault(tid, {})[frame] = [float(frame), *box]
    if not rows:
        raise DataFormatError(f"{path.name}: no tracks")
    return {tid: [by_frame[f] for f in sorted(by_frame)] for tid, by_frame in rows.items()}


class T7Published(Task):
    name = "t7"
    description = "Motion-conditioned generation metric: video mIoU against published box tracks."
    needs = Needs(judge="video mIoU of tracks")
    stand_in = (
        "real tracks from the data; the prediction is a straight-line interpolation between each "
        "track's first and last box (no video generator or tracker in this stack)"
    )

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        gold = tracks(inst.gold)
        scored = video_miou(gold, linear_prediction(gold))  # None: nothing matched (failed)
        miou = scored.miou if scored is not None else None
        return Outcome(
            answer=f"mIoU {miou:.3f}" if miou is not None else "mIoU failed (no track matched)",
            status="answered",
            miou=miou,
            turns=0,
            note=self.stand_in,
        )

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        answered = [r.miou for r in records if r.status == "answered"]
        return {**mean_video_miou(answered), "note": self.stand_in}


T7 = declare(
    "t7",
    metric="video mIoU of box tracks",
    generated=T7Task,
    published=(
        Format(
            "T7 MOT track files",
            "frame,track,x1,y1,x2,y2,conf,-1,-1,-1 (normalised), one file per clip",
            "SVI-Bench T7 bboxes/ (docs/published-data.md)",
            t7_tracks,
            T7Published,
            kind="folder",
            example="a folder of track files",
        ),
        Format(
            "T7 MOT track file",
            "frame,track,x1,y1,x2,y2,conf,-1,-1,-1 (normalised)",
            "SVI-Bench T7 bboxes/ (docs/published-data.md)",
            t7_tracks,
            T7Published,
            kind=".txt",
            example="one track file",
        ),
    ),
)
