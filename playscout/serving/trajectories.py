"""Trajectory files as the API sees them: `{trajectory_dir}/{id}.jsonl`, the id checked against
a strict pattern before any path is built, so no request names a file outside the directory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from playscout.agent.ids import valid_id
from playscout.agent.trajectory import (
    ErrorEvent,
    Event,
    RunStart,
    TrajectoryError,
    read_trajectory,
    summarise,
)
from playscout.errors import PlayscoutError
from playscout.serving.schemas import TrajectoryDetail, TrajectoryListItem

ANNOTATION_KEYS = ("gold_answer", "verdict", "judge", "correct")
INTERRUPTED = "interrupted"  # the server shut down mid-run
CANCELLED = "cancelled"  # the client went away, or someone cancelled the run
STOPPED_KINDS = (INTERRUPTED, CANCELLED)


class UnknownTrajectory(PlayscoutError, LookupError):
    status_code = 404
    code = "trajectory_not_found"


def trajectory_path(directory: Path, trajectory_id: str) -> Path:
    if not valid_id(trajectory_id):
        raise UnknownTrajectory(f"no trajectory {trajectory_id!r}")
    path = directory / f"{trajectory_id}.jsonl"
    if not path.is_file():
        raise UnknownTrajectory(f"no trajectory {trajectory_id!r}")
    return path


def _status(events: list[Event], final_status: str | None) -> str | None:
    """A run cut short by shutdown or cancelled says so, rather than a bare error."""
    last_start = max((i for i, e in enumerate(events) if isinstance(e, RunStart)), default=-1)
    for e in events[last_start + 1 :]:
        if isinstance(e, ErrorEvent) and e.kind in STOPPED_KINDS:
            return e.kind
    return final_status or ("running" if events else None)


def list_trajectories(directory: Path, limit: int) -> list[TrajectoryListItem]:
    """Newest first; unreadable files are listed with their error, not skipped silently."""
    if not directory.is_dir():
        return []
    files = [p for p in directory.glob("*.jsonl") if p.is_file() and valid_id(p.stem)]
    files.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    items = []
    for path in files[:limit]:
        try:
            events = read_trajectory(path)
        except TrajectoryError as e:
            items.append(
                TrajectoryListItem(
                    id=path.stem,
                    question=None,
                    status="unreadable",
                    answer=None,
                    turns=0,
                    created=None,
                    error=str(e).replace(str(directory), "").lstrip("/"),
                )
            )
            continue
        s = summarise(events)
        items.append(
            TrajectoryListItem(
                id=path.stem,
                question=s.question,
                status=_status(events, s.status),
                answer=s.answer,
                turns=s.turns,
                created=events[0].ts if events else None,
                policy=s.policy,
                tool_calls=s.tool_calls,
            )
        )
    return items


def read_annotations(path: Path) -> dict[str, Any]:
    """gold answer / verdict fields an eval writer may add to events (the event models ignore
    unknown fields, so they are read from the raw lines)."""
    found: dict[str, Any] = {}
    for line in path.read_bytes().splitlines():
        if not line.strip():
            continue
        try:
            raw = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(raw, dict):
            found.update({k: raw[k] for k in ANNOTATION_KEYS if k in raw})
    return found


def load_trajectory(directory: Path, trajectory_id: str) -> TrajectoryDetail:
    path = trajectory_path(directory, trajectory_id)
    events = read_trajectory(path)
    summary = summarise(events).model_dump(mode="json")
    summary["status"] = _status(events, summary.get("status"))
    return TrajectoryDetail(
        id=trajectory_id,
        summary=summary,
        annotations=read_annotations(path),
        events=[e.model_dump(mode="json") for e in events],
    )
