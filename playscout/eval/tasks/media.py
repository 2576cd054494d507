"""Where a data file's videos are. Paths are written relative to a release root (T4's
"T4/basketball/videos/1.mp4"), relative to a task folder (T1's "basketball/val/1.mp4"), or
absolute on the authors' cluster (T5's "/mnt/sun/.../404818_3.mp4"), so each is looked for
under `--media` (default: the data file's folder) as written, then with its leading folders
dropped one at a time. Only the path's own tail is ever matched, so a video is never swapped
for another game's. An item whose video is not found is `missing_input`, with the paths
tried."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

import orjson
from pydantic import BaseModel, ValidationError


class Item(Protocol):
    """What resolving reads and sets of an item (a task's Instance)."""

    meta: dict[str, Any]
    missing: str | None


class ProjectInstance(BaseModel):
    id: str
    videos: list[str]


class ProjectFile(BaseModel):
    """The GameplayQA question generator's project file: which videos (in order) each
    instance has."""

    instances: list[ProjectInstance]


def media_root(data: Path, media: Path | None) -> Path:
    if media is not None:
        return media
    return data if data.is_dir() else data.parent


def candidates(ref: str, root: Path) -> list[Path]:
    """The places a written path may be under `root`, most specific first."""
    path = Path(ref)
    parts = [p for p in path.parts if p not in ("/", "")]
    out = [path] if path.is_absolute() else []
    out += [root.joinpath(*parts[k:]) for k in range(len(parts))]
    return list(dict.fromkeys(out))


def find(ref: str, root: Path) -> Path | None:
    return next((p for p in candidates(ref, root) if p.is_file()), None)


def resolve_media(items: Sequence[Item], data: Path, media: Path | None) -> None:
    """Sets `meta["videos"]` (files) on each item with `video_refs`, or `missing` when one of
    its videos is not there."""
    root = media_root(data, media)
    projects = _Projects(root, data)
    for inst in items:
        refs = inst.meta.get("video_refs")
        if inst.missing or not refs:
            continue
        found: list[str] = []
        for ref in refs:
            path, reason = _locate(ref, root, projects)
            if path is None:
                inst.missing = reason
                break
            found.append(str(path))
        else:
            inst.meta["videos"] = found


def _locate(ref: Any, root: Path, projects: _Projects) -> tuple[Path | None, str]:
    if isinstance(ref, dict):  # GameplayQA generator: a video of a project instance
        written, why = projects.video(str(ref["instance"]), int(ref["index"]))
        if written is None:
            return None, why
        ref = written
    options = [ref] if isinstance(ref, str) else [str(r) for r in ref]
    for option in options:
        path = find(option, root)
        if path is not None:
            return path, ""
    shown = " or ".join(repr(o) for o in options)
    return None, f"video {shown} not found under {root}"


class _Projects:
    """The generator's project files (`{instances: [{id, videos}]}`): in the media folder or
    the project folder above the data file's `questions/`."""

    def __init__(self, root: Path, data: Path) -> None:
        self.places = list(dict.fromkeys([root, data.parent.parent]))

    @cached_property
    def instances(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for place in self.places:
            for file in sorted(place.glob("*.json")) if place.is_dir() else []:
                try:
                    project = ProjectFile.model_validate(orjson.loads(file.read_bytes()))
                except (orjson.JSONDecodeError, ValidationError, OSError):
                    continue  # not a project file
                for inst in project.instances:
                    out.setdefault(inst.id, inst.videos)
        return out

    def video(self, instance: str, index: int) -> tuple[str | None, str]:
        videos = self.instances.get(instance)
        if videos is None:
            where = ", ".join(str(p) for p in self.places)
            return None, f"no project file lists instance {instance!r}'s videos (looked in {where})"
        if not 0 <= index < len(videos):
            return None, f"instance {instance!r} has {len(videos)} videos, no video {index}"
        return videos[index], ""
