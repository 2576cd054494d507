"""Trajectory files as the API sees them: `{trajectory_dir}/{id}.jsonl` for ad-hoc asks (the
id checked against a strict pattern before any path is built, so no request names a file
outside the directory), and an eval question's file found through its run (eval/results/catalog.py).

Listings summarise every file once and keep the summary while the file's size and mtime stay
the same, so filtering and paging thousands of asks stays cheap."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, NamedTuple

import orjson
from pydantic import BaseModel, Field

from playscout.agent.ids import valid_id
from playscout.agent.trajectory import (
    ErrorEvent,
    Event,
    RunStart,
    TrajectoryError,
    read_trajectory,
    summarise,
)
from playscout.errors import NotFound
from playscout.eval.results.catalog import Page, paginate
from playscout.serving.schemas import TrajectoryDetail, TrajectoryListItem
from playscout.storage import ProcessOwner

ANNOTATION_KEYS = ("gold_answer", "verdict", "judge", "correct")
RUNNING = "running"
INTERRUPTED = "interrupted"  # the server shut down mid-run, or the process writing it died
CANCELLED = "cancelled"  # the client went away, or someone cancelled the run
STOPPED_KINDS = (INTERRUPTED, CANCELLED)


class UnknownTrajectory(NotFound):
    code = "trajectory_not_found"


class TrajectoryFilter(BaseModel):
    status: str | None = None
    tool: str | None = Field(None, description="Asks that called this tool.")
    q: str | None = Field(None, description="Text in the id, question, answer or error.")

    def keep(self, item: TrajectoryListItem) -> bool:
        if self.status and item.status != self.status:
            return False
        if self.tool and not item.tool_calls.get(self.tool):
            return False
        if self.q:
            needle = self.q.casefold()
            hay = (item.id, item.question or "", item.answer or "", item.error or "")
            return any(needle in h.casefold() for h in hay)
        return True


class TrajectoryPage(Page[TrajectoryListItem]):
    facets: dict[str, list[str]] = Field(default_factory=dict)


def trajectory_path(directory: Path, trajectory_id: str) -> Path:
    """The file of ask `trajectory_id`. An ask's id names its file and its events' run_id;
    files written before they were one id (their events carry another run_id) are found by
    that run_id too, so an old trace's id still opens its trajectory."""
    if not valid_id(trajectory_id):
        raise UnknownTrajectory(f"no trajectory {trajectory_id!r}")
    path = directory / f"{trajectory_id}.jsonl"
    if path.is_file():
        return path
    found = _SUMMARIES.by_run_id(directory, trajectory_id) if directory.is_dir() else None
    if found is None:
        raise UnknownTrajectory(f"no trajectory {trajectory_id!r}")
    return found


def _owner(events: list[Event]) -> ProcessOwner | None:
    start = next((e for e in reversed(events) if isinstance(e, RunStart)), None)
    return start.owner if start else None


def _unfinished(owner: ProcessOwner | None) -> tuple[str, str | None]:
    """A run with no final event is running only while the process that writes it lives."""
    if owner is None:
        return INTERRUPTED, "no process owns it (no owner recorded): it will not finish"
    if not owner.alive():
        return INTERRUPTED, f"the process that ran it (pid {owner.pid}) ended before it finished"
    return RUNNING, None


def _status(events: list[Event], final_status: str | None) -> tuple[str | None, str | None]:
    """(status, why it stopped): a run cut short by shutdown, cancelled, or whose process died
    says so, rather than a bare error or `running` forever."""
    last_start = max((i for i, e in enumerate(events) if isinstance(e, RunStart)), default=-1)
    for e in events[last_start + 1 :]:
        if isinstance(e, ErrorEvent) and e.kind in STOPPED_KINDS:
            return e.kind, None
    if final_status or not events:
        return final_status, None
    return _unfinished(_owner(events))


class _Entry(NamedTuple):
    item: TrajectoryListItem
    owner: ProcessOwner | None
    run_ids: tuple[str, ...] = ()  # the run ids its events carry (old files: not its name)


def _item(path: Path, directory: Path) -> _Entry:
    try:
        events = read_trajectory(path)
    except TrajectoryError as e:
        item = TrajectoryListItem(
            id=path.stem,
            question=None,
            status="unreadable",
            answer=None,
            turns=0,
            created=None,
            error=str(e).replace(str(directory), "").lstrip("/"),
        )
        return _Entry(item, None)
    s = summarise(events)
    start = next((e for e in events if isinstance(e, RunStart)), None)
    status, why = _status(events, s.status)
    item = TrajectoryListItem(
        id=path.stem,
        question=s.question,
        status=status,
        answer=s.answer,
        turns=s.turns,
        created=events[0].ts if events else None,
        policy=s.policy,
        sport=start.sport if start else None,
        mode=start.mode if start else None,
        tool_calls=s.tool_calls,
        error=s.error or why,
    )
    return _Entry(item, _owner(events), tuple(s.run_ids))


def _now(item: TrajectoryListItem, owner: ProcessOwner | None) -> TrajectoryListItem:
    """A cached `running` summary stays true only while its owner lives (the file of a killed
    ask never changes again, so its cached summary would say `running` forever)."""
    if item.status != RUNNING:
        return item
    status, why = _unfinished(owner)
    return item if status == RUNNING else item.model_copy(update={"status": status, "error": why})


class _Summaries:
    """path -> ((size, mtime_ns), entry); entries of deleted files are dropped on listing."""

    def __init__(self) -> None:
        self._items: dict[Path, tuple[tuple[int, int], _Entry]] = {}
        self._lock = threading.Lock()

    def by_run_id(self, directory: Path, run_id: str) -> Path | None:
        """The file whose events carry `run_id` (an ask written before its file was named by
        its run id), from the listing's summaries (refreshed here)."""
        self.items(directory)
        with self._lock:
            return next(
                (
                    path
                    for path, (_, entry) in self._items.items()
                    if path.parent == directory and run_id in entry.run_ids
                ),
                None,
            )

    def items(self, directory: Path) -> list[tuple[float, TrajectoryListItem]]:
        """(mtime, item) of every trajectory file in the directory."""
        files = [p for p in directory.glob("*.jsonl") if valid_id(p.stem)]
        out = []
        seen = set()
        for path in files:
            try:
                st = path.stat()
            except OSError:
                continue  # deleted while listing
            sig = (st.st_size, st.st_mtime_ns)
            seen.add(path)
            with self._lock:
                hit = self._items.get(path)
            if hit is None or hit[0] != sig:
                hit = (sig, _item(path, directory))
                with self._lock:
                    self._items[path] = hit
            out.append((st.st_mtime, _now(hit[1].item, hit[1].owner)))
        with self._lock:
            for gone in [p for p in self._items if p.parent == directory and p not in seen]:
                del self._items[gone]
        return out


_SUMMARIES = _Summaries()


def list_trajectories(
    directory: Path, where: TrajectoryFilter | None = None, offset: int = 0, limit: int = 100
) -> TrajectoryPage:
    """Newest first; unreadable files are listed with their error, not skipped silently."""
    if not directory.is_dir():
        return TrajectoryPage(items=[], total=0, offset=offset, limit=limit)
    found = _SUMMARIES.items(directory)
    found.sort(key=lambda pair: (pair[0], pair[1].id), reverse=True)
    items = [item for _, item in found]
    keep = [i for i in items if where is None or where.keep(i)]
    facets = {
        "status": sorted({i.status for i in items if i.status}),
        "tool": sorted({t for i in items for t in i.tool_calls}),
        "sport": sorted({i.sport for i in items if i.sport}),
    }
    return TrajectoryPage(**paginate(keep, offset, limit).model_dump(), facets=facets)


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


def trajectory_detail(
    path: Path, trajectory_id: str, annotations: dict[str, Any] | None = None
) -> TrajectoryDetail:
    events = read_trajectory(path)
    summary = summarise(events).model_dump(mode="json")
    summary["status"], why = _status(events, summary.get("status"))
    if why and not summary.get("error"):
        summary["error"] = why
    return TrajectoryDetail(
        id=trajectory_id,
        summary=summary,
        annotations={**read_annotations(path), **(annotations or {})},
        events=[e.model_dump(mode="json") for e in events],
    )


def load_trajectory(directory: Path, trajectory_id: str) -> TrajectoryDetail:
    path = trajectory_path(directory, trajectory_id)
    return trajectory_detail(path, path.stem)
