"""Clip ids -> media files, through the corpus only (never a path from the model), with the
per-call bound shared by every perception tool."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from pydantic import Field, field_validator

from playscout.tools.args import one_or_many
from playscout.tools.tool import ToolArgs, ToolContext, ToolError

T = TypeVar("T")


class ClipArgs(ToolArgs):
    video_ids: list[str] = Field(
        ..., min_length=1, description="Clip ids as returned by search_videos, e.g. '400000_12'."
    )

    _lists = field_validator("video_ids", mode="before")(one_or_many)


@dataclass(frozen=True)
class ClipFile:
    clip_id: str
    path: Path


def resolve_clips(ctx: ToolContext, video_ids: list[str], max_clips: int) -> list[ClipFile]:
    """Unique ids in order; a missing corpus, too many ids or an unknown id is a ToolError."""
    if ctx.corpus is None:
        raise ToolError("no media corpus is configured, so clips cannot be opened")
    ids = list(dict.fromkeys(v.strip() for v in video_ids if v.strip()))
    if not ids:
        raise ToolError("give at least one video id")
    if len(ids) > max_clips:
        raise ToolError(f"{len(ids)} video ids given; at most {max_clips} per call")
    out = []
    for clip_id in ids:
        try:
            path = ctx.corpus.clip_path(ctx.sport, clip_id)
        except ValueError as e:  # a malformed id, or CorpusError for an unknown game
            reason = str(e).lstrip(": ")
            raise ToolError(f"no video file for clip {clip_id!r} ({reason})") from None
        if path is None:
            raise ToolError(f"no video file for clip {clip_id!r} in the {ctx.sport} corpus")
        out.append(ClipFile(clip_id, path))
    return out


def per_clip(
    clips: list[ClipFile], work: Callable[[ClipFile], T], errors: tuple[type[Exception], ...]
) -> list[tuple[ClipFile, T | None, str | None]]:
    """Run `work` on each clip; a clip that fails is reported, not fatal, unless all fail
    (then the first failure is the tool's one-line error)."""
    results: list[tuple[ClipFile, T | None, str | None]] = []
    for clip in clips:
        try:
            results.append((clip, work(clip), None))
        except errors as e:
            results.append((clip, None, str(e)))
    failed = [r for r in results if r[2] is not None]
    if failed and len(failed) == len(results):
        first = failed[0]
        more = f" (and {len(failed) - 1} more clips failed)" if len(failed) > 1 else ""
        raise ToolError(f"clip {first[0].clip_id}: {first[2]}{more}")
    return results
