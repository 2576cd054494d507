"""PNG plots with matplotlib's Agg backend (no display needed): accuracy per sport (default vs
oracle bars when two runs are given), tool calls per tool, turns by outcome, and one trajectory
timeline strip per question (a coloured block per tool call, like the paper's Fig. 20/47)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from playscout.agent.trajectory import ToolCallEvent, TrajectoryError, read_trajectory
from playscout.eval.store import load_results

COLOURS = {"search_documents": "#4c72b0", "document_qa": "#55a868", "search_videos": "#c44e52",
           "video_qa": "#8172b2"}  # fmt: skip
OTHER = "#999999"


def _bars(ax: Any, groups: list[str], series: dict[str, list[float]]) -> None:
    width = 0.8 / max(1, len(series))
    for i, (label, values) in enumerate(series.items()):
        ax.bar([g + i * width for g in range(len(groups))], values, width, label=label)
    ax.set_xticks(
        [g + width * (len(series) - 1) / 2 for g in range(len(groups))], groups, rotation=20
    )
    ax.legend()


def _save(fig: Any, path: Path) -> str:
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path.name


def write_plots(summaries: list[dict[str, Any]], run_dirs: list[Path], out: Path) -> list[str]:
    files = []
    labels = [f"{s['mode']}" for s in summaries]
    sports = list(dict.fromkeys(k for s in summaries for k in s["accuracy"]))
    fig, ax = plt.subplots(figsize=(6, 3.5))
    _bars(
        ax,
        sports,
        {
            lab: [s["accuracy"].get(sp, {}).get("accuracy") or 0.0 for sp in sports]
            for lab, s in zip(labels, summaries, strict=True)
        },
    )
    ax.set_ylabel("accuracy (%)")
    files.append(_save(fig, out / "accuracy_per_sport.png"))
    tools = list(dict.fromkeys(k for s in summaries for k in s["tool_calls_per_question"]))
    fig, ax = plt.subplots(figsize=(6, 3.5))
    _bars(
        ax,
        tools,
        {
            lab: [s["tool_calls_per_question"].get(t, 0.0) for t in tools]
            for lab, s in zip(labels, summaries, strict=True)
        },
    )
    ax.set_ylabel("calls per question")
    files.append(_save(fig, out / "tool_calls.png"))
    fig, ax = plt.subplots(figsize=(5, 3.5))
    outcomes = ["overall", "correct", "incorrect"]
    _bars(
        ax,
        outcomes,
        {
            lab: [s["turns_by_outcome"].get(o) or 0.0 for o in outcomes]
            for lab, s in zip(labels, summaries, strict=True)
        },
    )
    ax.set_ylabel("turns per question")
    files.append(_save(fig, out / "turns_by_outcome.png"))
    for s, d in zip(summaries, run_dirs, strict=True):
        name = f"timeline_{s['mode']}.png"
        if timeline(d, out / name):
            files.append(name)
    return files


def timeline(run_dir: Path, path: Path, max_questions: int = 40) -> bool:
    """One row per question, one block per tool call in order."""
    rows = load_results(run_dir)[:max_questions]
    if not rows:
        return False
    fig, ax = plt.subplots(figsize=(8, 0.3 * len(rows) + 1.2))
    for y, row in enumerate(rows):
        try:
            events = read_trajectory(run_dir / row.trajectory)
        except TrajectoryError:
            continue
        calls = [e.name for e in events if isinstance(e, ToolCallEvent)]
        for x, name in enumerate(calls):
            ax.barh(y, 1, left=x, color=COLOURS.get(name, OTHER), edgecolor="white")
    ax.set_yticks(range(len(rows)), [r.qid for r in rows], fontsize=6)
    ax.set_xlabel("tool call #")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in [*COLOURS.values(), OTHER]]
    ax.legend(handles, [*COLOURS, "other"], fontsize=6, loc="lower right")
    ax.invert_yaxis()
    _save(fig, path)
    return True
