"""Clip media for the run browser: the clip file (the route serves it with HTTP range
requests, so a `<video>` can seek), a thumbnail, and the exact frames a `video_qa` call sent
(the trajectory records their times and JPEG settings; `media.jpeg_at` decodes them again).

A clip id must be a valid id of the form `<game_id>_<index>` listed in the corpus' clip
paths (which the corpus loader resolves inside the corpus root); nothing from the request is
joined onto a path."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from playscout.agent.ids import valid_id
from playscout.corpus import Corpus
from playscout.corpus.errors import CorpusError
from playscout.corpus.models import split_clip_id
from playscout.corpus.validate import unusable
from playscout.errors import NotFound, PlayscoutError
from playscout.serving.schemas import TrajectoryDetail

THUMBNAIL_SIDE = 240
MEDIA_TYPES = {".mp4": "video/mp4", ".webm": "video/webm", ".mkv": "video/x-matroska",
               ".mov": "video/quicktime", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
               ".png": "image/png"}  # fmt: skip


class UnknownClip(NotFound):
    code = "clip_not_found"


class UnusableClip(PlayscoutError, ValueError):
    """A listed clip whose file cannot be served (empty, unreadable): 422 with the reason,
    never a 200 with no bytes."""

    status_code = 422
    code = "clip_unusable"


class ClipMedia:
    def __init__(self, corpus: Corpus | None) -> None:
        self.corpus = corpus

    def path(
        self, clip_id: str, sport: str | None = None, *, sports: list[str] | None = None
    ) -> Path:
        """The clip's file, or UnknownClip (also when this server has no corpus). `sports`:
        the corpus' sports when the caller already listed them (one listing for many clips)."""
        if self.corpus is None:
            raise UnknownClip(
                f"no clip {clip_id!r}: this server has no corpus configured (set corpus_dir)"
            )
        if not valid_id(clip_id):
            raise UnknownClip(f"no clip {clip_id!r}")
        try:
            split_clip_id(clip_id)
        except ValueError:
            raise UnknownClip(f"no clip {clip_id!r} (clip ids are <game_id>_<index>)") from None
        sports = self.corpus.sports() if sports is None else sports
        if sport is not None and sport not in sports:
            raise UnknownClip(f"no clip {clip_id!r}: no sport {sport!r} in this corpus")
        for name in [sport] if sport else sports:
            try:
                path = self.corpus.clip_path(name, clip_id)
            except CorpusError:
                continue  # not a game of this sport
            if path is not None and path.is_file() and path.suffix.lower() in MEDIA_TYPES:
                if (why := unusable(path)) is not None:
                    raise UnusableClip(f"clip {clip_id!r}: its file is {why}")
                return path
        raise UnknownClip(f"no clip {clip_id!r} with a media file in this corpus")

    def available(self, clip_ids: list[str], sport: str | None = None) -> dict[str, bool]:
        """clip id -> whether it has a servable file, so the run browser asks for no thumbnail,
        frame or clip that would be a 404 (a corpus without video has none)."""
        out = {}
        sports = self.corpus.sports() if self.corpus is not None else []
        for clip_id in clip_ids:
            try:
                self.path(clip_id, sport or None, sports=sports)
                out[clip_id] = True
            except (UnknownClip, UnusableClip, CorpusError):
                out[clip_id] = False
        return out

    def thumbnail(self, clip_id: str, sport: str | None = None) -> bytes:
        path = self.path(clip_id, sport)
        return _thumbnail(path, path.stat().st_mtime_ns)

    def frame(
        self, clip_id: str, sport: str | None, time: float, long_side: int, quality: int
    ) -> tuple[float, bytes]:
        path = self.path(clip_id, sport)
        return _frame(path, path.stat().st_mtime_ns, time, long_side, quality)


@functools.lru_cache(maxsize=512)
def _thumbnail(path: Path, mtime_ns: int) -> bytes:
    from playscout.media import thumbnail

    return thumbnail(path, THUMBNAIL_SIDE).jpeg


@functools.lru_cache(maxsize=512)
def _frame(
    path: Path, mtime_ns: int, time: float, long_side: int, quality: int
) -> tuple[float, bytes]:
    from playscout.media import jpeg_at

    frame = jpeg_at(path, time, long_side, quality)
    return frame.time, frame.jpeg


def shown_clips(events: list[dict[str, Any]]) -> tuple[str, list[str]]:
    """(sport, every clip id the trajectory shows: search hits, QA answers, final evidence)."""
    sport, seen = "", dict[str, None]()
    for e in events:
        if e.get("type") == "run_start":
            sport = e.get("sport") or ""
        data = e.get("data") or {}
        seen.update(dict.fromkeys(map(str, data.get("clip_ids") or [])))
        seen.update(dict.fromkeys(str(a.get("id")) for a in data.get("answers") or []))
        seen.update(dict.fromkeys(map(str, (e.get("evidence") or {}).get("clip_ids") or [])))
    return sport, list(seen)


def with_media(detail: TrajectoryDetail, media: ClipMedia) -> TrajectoryDetail:
    """The detail with `annotations.media`: clip id -> whether the server can show it."""
    sport, clips = shown_clips(detail.events)
    detail.annotations["media"] = media.available(clips, sport)
    return detail
