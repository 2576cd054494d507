"""PNG plots with matplotlib's Agg backend (no display needed): accuracy per sport (default vs
oracle bars when two runs are given), tool calls per tool, turns by outcome, and one trajectory
timeline strip per question (a coloured block per tool call, like the paper's Fig. 20/47).

Every question gets its row: timelines are split into pages of `TIMELINE_PAGE` questions rather
than cut, and a question whose trajectory cannot be read says so on its row. Each run is drawn
under its own label (report.run_labels), so two runs in one mode never share a legend entry or
a file name."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from playscout.agent.trajectory import ToolCallEvent, TrajectoryError, read_trajectory
from playscout.eval.storage.store import load_results

PAPER_COLOURS = {
    "search_documents": "#4c72b0",
    "document_qa": "#55a868",
    "search_videos": "#c44e52",
    "video_qa": "#8172b2",
    "video_qa_oracle": "#b3a6e0",  # video_qa's stand-in in oracle mode: the same hue, lighter
}
PALETTE = ("#dd8452", "#937860", "#da8bc3", "#8c8c8c", "#ccb974", "#64b5cd", "#2f4b7c",
           "#a05195", "#665191", "#ff7c43", "#003f5c", "#7a5195")  # fmt: skip
OTHER = "#cccccc"  # only a tool no registry knows (a trajectory from another version)


def tool_colours() -> dict[str, str]:
    """A colour for every tool in the registry: the paper's four (and video_qa_oracle) fixed,
    every other tool its own from PALETTE in name order, so a new tool is never drawn as
    "other"."""
    from playscout.tools.registry import REGISTRY

    out = {name: c for name, c in PAPER_COLOURS.items() if name in REGISTRY}
    rest = [n for n in sorted(REGISTRY) if n not in out]
    for i, name in enumerate(rest):
        out[name] = PALETTE[i % len(PALETTE)]
    return out


TIMELINE_PAGE = 50


def _bars(
    ax: Any,
    groups: list[str],
    series: dict[str, list[float]],
    top: float | None = None,
    labels: dict[str, list[str]] | None = None,
) -> None:
    """Grouped bars on an axis from 0: to `top` when given (accuracy: 100), else just above the
    highest bar, so an all-zero plot reads 0 instead of matplotlib's +-0.04 band. `labels`:
    text over each bar (per series), which a 0-high bar still shows."""
    width = 0.8 / max(1, len(series))
    for i, (label, values) in enumerate(series.items()):
        bars = ax.bar([g + i * width for g in range(len(groups))], values, width, label=label)
        if labels and label in labels:
            ax.bar_label(bars, labels[label], fontsize=7, padding=2)
    ax.set_xticks(
        [g + width * (len(series) - 1) / 2 for g in range(len(groups))], groups, rotation=20
    )
    highest = max((v for values in series.values() for v in values), default=0.0)
    ax.set_ylim(0, top if top is not None else (highest * 1.1 or 1.0))
    ax.legend()


def _save(fig: Any, path: Path) -> str:
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path.name


def slug(label: str) -> str:
    """A label as a file-name part: `default (llm) run_a` -> `default_llm_run_a`."""
    return re.sub(r"[^A-Za-z0-9]+", "_", label).strip("_").lower() or "run"


def write_plots(
    summaries: list[dict[str, Any]], run_dirs: list[Path], out: Path, labels: list[str]
) -> list[str]:
    """`labels`: one distinct label per run (report.run_labels). The accuracy plot is drawn
    only when some run has verdicts: unjudged answers would plot as a misleading 0 %."""
    files = []
    if any(s["judge"] for s in summaries):
        sports = list(dict.fromkeys(k for s in summaries for k in s["accuracy"]))
        fig, ax = plt.subplots(figsize=(6, 3.5))
        _bars(
            ax,
            sports,
            {
                lab: [s["accuracy"].get(sp, {}).get("accuracy") or 0.0 for sp in sports]
                for lab, s in zip(labels, summaries, strict=True)
            },
            top=100.0,
            labels={
                lab: [_accuracy_label(s["accuracy"].get(sp)) for sp in sports]
                for lab, s in zip(labels, summaries, strict=True)
            },
        )
        ax.set_ylabel("accuracy (%)")
        unjudged = sum(s["accuracy"].get("overall", {}).get("unjudged", 0) for s in summaries)
        ax.set_title(
            f"accuracy per sport ({unjudged} unjudged, counted as not correct)", fontsize=8
        )
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
    for label, d in zip(labels, run_dirs, strict=True):
        files += timeline(d, out, f"timeline_{slug(label)}", label)
    return files


def _accuracy_label(a: dict[str, Any] | None) -> str:
    """`0%` with `0/12, 3 unjudged` under it: an all-wrong run still reads as counted."""
    if not a or not a.get("n"):
        return "-"
    return f"{a['accuracy'] or 0:.0f}%\n{a['correct']}/{a['n']}, {a['unjudged']} unjudged"


def timeline(run_dir: Path, out: Path, stem: str, label: str = "") -> list[str]:
    """One row per question, one block per tool call in order; every question of the run, in
    pages of TIMELINE_PAGE (`stem.png`, `stem_2.png`, ...). Returns the files written."""
    rows = load_results(run_dir)
    pages = [rows[i : i + TIMELINE_PAGE] for i in range(0, len(rows), TIMELINE_PAGE)]
    files = []
    for n, page in enumerate(pages, 1):
        first = (n - 1) * TIMELINE_PAGE + 1
        title = f"{label}: questions {first}-{first + len(page) - 1} of {len(rows)}"
        name = f"{stem}.png" if n == 1 else f"{stem}_{n}.png"
        files.append(_timeline_page(run_dir, page, out / name, title))
    return files


def _timeline_page(run_dir: Path, rows: list[Any], path: Path, title: str) -> str:
    colours = tool_colours()
    drawn: dict[str, str] = {}
    fig, ax = plt.subplots(figsize=(8, 0.3 * len(rows) + 1.4))
    for y, row in enumerate(rows):
        try:
            events = read_trajectory(run_dir / row.trajectory)
        except TrajectoryError:
            ax.text(0.05, y, "trajectory unreadable", va="center", fontsize=6, color=OTHER)
            continue
        calls = [e.name for e in events if isinstance(e, ToolCallEvent)]
        for x, name in enumerate(calls):
            drawn[name] = colours.get(name, OTHER)
            ax.barh(y, 1, left=x, color=drawn[name], edgecolor="white")
        if not calls:
            ax.text(0.05, y, f"no tool calls ({row.status})", va="center", fontsize=6, color=OTHER)
    ax.set_yticks(range(len(rows)), [r.qid for r in rows], fontsize=6)
    ax.set_ylim(len(rows) - 0.5, -0.5)  # first question on top
    ax.set_xlim(left=0)
    ax.set_xlabel("tool call #")
    ax.set_title(title, fontsize=8)
    # the legend names the tools this page draws, each in its own colour
    legend = {n: c for n, c in colours.items() if n in drawn}
    legend.update({n: c for n, c in drawn.items() if n not in colours})
    if legend:
        handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in legend.values()]
        ax.legend(handles, list(legend), fontsize=6, loc="lower right")
    return _save(fig, path)
