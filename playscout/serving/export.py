"""A run as a static folder that opens from disk with no server (`playscout eval export RUN
--html DIR`): the run browser's own page and script, the run's question list and each
question's trajectory as script files (a page opened from `file://` may load scripts but not
fetch JSON), and, when a corpus is at hand, the clips, thumbnails and video_qa frames the
trajectories refer to. Copy the folder anywhere and open `index.html`."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from playscout.agent.ids import valid_id
from playscout.agent.trajectory import read_trajectory
from playscout.corpus import Corpus
from playscout.eval.results import catalog
from playscout.eval.results.compare import first_divergent_turn
from playscout.media import MediaError
from playscout.serving.media import ClipMedia, UnknownClip
from playscout.serving.routes.viewer import ASSETS, read_asset
from playscout.serving.schemas import TrajectoryDetail
from playscout.serving.trajectories import trajectory_detail

Progress = Callable[[str, int, int | None], None]


@dataclass
class ExportResult:
    out: Path
    questions: int
    clips: int = 0
    frames: int = 0
    missing_clips: list[str] = field(default_factory=list)


def frame_key(clip_id: str, time: float) -> str:
    """How the page looks up a frame (viewer.js: `id + "@" + t.toFixed(3)`)."""
    return f"{clip_id}@{time:.3f}"


def _js(call: str, *args: Any) -> bytes:
    """`call(arg, ...);` with JSON arguments (JSON is valid JavaScript)."""
    body = b", ".join(orjson.dumps(a, option=orjson.OPT_NON_STR_KEYS) for a in args)
    return call.encode() + b"(" + body + b");\n"


def _page() -> str:
    html = read_asset("index.html")
    for name in ASSETS:
        html = html.replace(f"/viewer/static/{name}", name)
    return html.replace(
        '<script src="viewer.js" defer></script>',
        '<script src="data/run.js"></script>\n<script src="viewer.js" defer></script>',
    )


def _clip_refs(detail: TrajectoryDetail) -> tuple[str, dict[str, dict[str, Any]]]:
    """(sport, clip id -> the frames video_qa sent of it, or {}) for every clip the
    trajectory shows: search hits, QA answers and the final evidence."""
    sport, clips = "", dict[str, dict[str, Any]]()
    for e in detail.events:
        if e.get("type") == "run_start":
            sport = e.get("sport") or ""
        data = e.get("data") or {}
        for clip_id in data.get("clip_ids", []):
            clips.setdefault(clip_id, {})
        for answer in data.get("answers", []):
            if answer.get("frames"):
                clips[answer["id"]] = answer["frames"]
        for clip_id in (e.get("evidence") or {}).get("clip_ids", []):
            clips.setdefault(clip_id, {})
    return sport, clips


class _MediaWriter:
    def __init__(self, corpus: Corpus, out: Path, result: ExportResult) -> None:
        self.media = ClipMedia(corpus)
        self.out = out
        self.result = result
        self.clips: dict[str, str] = {}
        self.thumbs: dict[str, str] = {}
        self.frames: dict[str, str] = {}
        self.done: set[str] = set()

    def add(self, sport: str, clip_id: str, frames: dict[str, Any]) -> None:
        if not valid_id(clip_id):
            return
        try:
            if clip_id not in self.done:
                self.done.add(clip_id)
                self._clip(sport, clip_id)
            for t in frames.get("times", []):
                self._frame(sport, clip_id, float(t), frames)
        except (UnknownClip, MediaError):
            if clip_id not in self.result.missing_clips:
                self.result.missing_clips.append(clip_id)

    def _clip(self, sport: str, clip_id: str) -> None:
        path = self.media.path(clip_id, sport or None)
        rel = f"media/clips/{clip_id}{path.suffix.lower()}"
        (self.out / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, self.out / rel)
        self.clips[clip_id] = rel
        self.result.clips += 1
        thumb = f"media/thumbs/{clip_id}.jpg"
        (self.out / thumb).parent.mkdir(parents=True, exist_ok=True)
        (self.out / thumb).write_bytes(self.media.thumbnail(clip_id, sport or None))
        self.thumbs[clip_id] = thumb

    def _frame(self, sport: str, clip_id: str, t: float, frames: dict[str, Any]) -> None:
        key = frame_key(clip_id, t)
        if key in self.frames:
            return
        _, jpeg = self.media.frame(
            clip_id, sport or None, t, int(frames["long_side"]), int(frames["quality"])
        )
        rel = f"media/frames/{clip_id}/{t:.3f}.jpg"
        (self.out / rel).parent.mkdir(parents=True, exist_ok=True)
        (self.out / rel).write_bytes(jpeg)
        self.frames[key] = rel
        self.result.frames += 1

    def table(self) -> dict[str, dict[str, str]]:
        return {"clips": self.clips, "thumbs": self.thumbs, "frames": self.frames}


def _divergence(baseline: Path, qid: str, path: Path) -> dict[str, Any] | None:
    """The first turn where this question's trajectory acted differently from the baseline
    run's (eval/results/compare.py); None when the baseline has no trajectory for it."""
    other = catalog.trajectory_file(baseline, qid)
    if other is None:
        return None
    turn = first_divergent_turn(read_trajectory(other), read_trajectory(path))
    return {"baseline": baseline.name, "turn": turn}


def export_run(
    run_dir: Path,
    out: Path,
    corpus: Corpus | None = None,
    progress: Progress | None = None,
    baseline: Path | None = None,
) -> ExportResult:
    """Writes the export into `out` (created; an existing export there is replaced). With a
    `baseline` run, each question's page outlines its first divergent turn from that run."""
    if baseline is not None:
        catalog.run_at(baseline)  # a one-line error when it is not a run
    info, rows = catalog.run_at(run_dir)
    out = Path(out)
    if (out / "data").is_dir():
        shutil.rmtree(out / "data")
    shutil.rmtree(out / "media", ignore_errors=True)
    (out / "data" / "q").mkdir(parents=True, exist_ok=True)
    result = ExportResult(out=out, questions=len(rows))
    media = _MediaWriter(corpus, out, result) if corpus is not None else None
    files: dict[str, str] = {}
    for i, row in enumerate(rows):
        path = catalog.trajectory_file(run_dir, row.qid)
        if path is not None:
            result_row = catalog.result_row(run_dir, row.qid)
            detail = trajectory_detail(
                path, row.qid, catalog.question_annotations(row, info.judge, result_row)
            )
            sport, clips = _clip_refs(detail)
            if media is not None:
                for clip_id, frames in clips.items():
                    media.add(sport, clip_id, frames)
            # which clips the page may show as video: the ones copied here, no other
            copied = media.clips if media is not None else {}
            detail.annotations["media"] = {c: c in copied for c in clips}
            if baseline is not None:
                detail.annotations["divergence"] = _divergence(baseline, row.qid, path)
            rel = f"data/q/{i:05d}.js"
            (out / rel).write_bytes(
                _js("PLAYSCOUT_STATIC_LOADED", row.qid, detail.model_dump(mode="json"))
            )
            files[row.qid] = rel
        if progress:
            progress("questions", i + 1, len(rows))
    data = {
        "run": info.model_dump(mode="json"),
        "questions": [r.model_dump(mode="json") for r in rows],
        "facets": catalog.facets(rows),
        "files": files,
        "media": media.table() if media is not None else {},
    }
    (out / "data" / "run.js").write_bytes(
        b"window.PLAYSCOUT_STATIC = " + orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS) + b";\n"
    )
    for name in ASSETS:
        (out / name).write_text(read_asset(name), encoding="utf-8")
    (out / "index.html").write_text(_page(), encoding="utf-8")
    return result
