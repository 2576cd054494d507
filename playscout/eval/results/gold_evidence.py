"""How far a T9 run got towards each question's gold evidence, read from its trajectories.

A wrong answer is a retrieval miss or a reading miss; the judge cannot tell them apart. Generated
questions carry their gold game, documents and clips (T9Task puts them in each row's meta), so
for every question this counts whether a search returned one of the gold documents, whether a
search returned one of the gold clips, and whether a gold clip was given to video_qa (the one
step that reads the clip: frames in default mode, captions in oracle mode).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from playscout.agent.trajectory import (
    Observation,
    ToolCallEvent,
    TrajectoryError,
    read_trajectory,
)
from playscout.eval.storage.records import ResultRow
from playscout.tools.qa import VideoQAArgs

CLIP_READERS = ("video_qa", "video_qa_oracle")  # the tools that read a clip
STEPS = ("gold_document_found", "gold_clip_found", "gold_clip_read")


def _reached(events: list[Any], docs: set[str], clips: set[str]) -> dict[str, bool]:
    found_docs: set[str] = set()
    found_clips: set[str] = set()
    read: set[str] = set()
    for e in events:
        if isinstance(e, Observation) and e.error is None:
            if e.name == "search_documents":
                found_docs.update(map(str, e.data.get("doc_ids") or []))
            elif e.name == "search_videos":
                found_clips.update(map(str, e.data.get("clip_ids") or []))
        elif isinstance(e, ToolCallEvent) and e.name in CLIP_READERS:
            # the tool's own argument model (its id aliases, one id for a list); arguments it
            # refuses read no clip
            with contextlib.suppress(ValidationError):
                read.update(VideoQAArgs.model_validate(e.arguments).video_ids)
    return {
        "gold_document_found": bool(docs & found_docs),
        "gold_clip_found": bool(clips & found_clips),
        "gold_clip_read": bool(clips & read),
    }


def gold_evidence(run_dir: Path, rows: list[ResultRow]) -> dict[str, Any] | None:
    """Shares of the questions with gold ids that reached each step (STEPS), with n; None when
    no row carries gold clips (the released questions have none)."""
    counts = dict.fromkeys(STEPS, 0)
    n = unreadable = 0
    for r in rows:
        clips = set(r.meta.get("gold_clip_ids") or [])
        if not clips:
            continue
        n += 1
        try:
            events = read_trajectory(Path(run_dir) / r.trajectory)
        except TrajectoryError:
            unreadable += 1
            continue
        for step, hit in _reached(events, set(r.meta.get("gold_doc_ids") or []), clips).items():
            counts[step] += hit
    if not n:
        return None
    out: dict[str, Any] = {"n": n, "unreadable_trajectories": unreadable}
    out.update({step: counts[step] / n for step in STEPS})
    return out
