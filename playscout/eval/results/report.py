"""Run reports: accuracy per sport with counts (and default vs oracle side by side), tool calls
per question per tool (paper Table 39), turns by outcome (Table 40), statuses, tokens and time.
Written as report.md + report.json (+ PNG plots); numbers come only from the run directory, so
a report can be rebuilt at any time."""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from playscout.config.presets import preset_label
from playscout.eval.judging.metrics import cohen_kappa, mean
from playscout.eval.results.gold_evidence import STEPS, gold_evidence
from playscout.eval.results.verdicts import judge_models, judgements, pick_judge
from playscout.eval.running.stamp import run_stamp, stamp_line
from playscout.eval.storage.human import human_counts, human_verdicts
from playscout.eval.storage.records import ResultRow
from playscout.eval.storage.store import RUN_JSON, load_results, require_run_dir, write_json_atomic
from playscout.eval.tasks.registry import get_task

TOOLS = ("search_documents", "search_videos", "document_qa", "video_qa")
SAME_COLUMN = {"video_qa_oracle": "video_qa"}  # Table 39: "video_qa maps to video_qa_oracle"


def _task(meta: dict[str, Any]) -> Any:
    """The task that scored the run: over its published data file, or over the corpus."""
    if meta.get("data"):
        from playscout.eval.tasks.registry import published_task

        return published_task(meta["task"], format_name=meta.get("format"))
    return get_task(meta["task"])


def missing_inputs(rows: list[ResultRow]) -> dict[str, Any]:
    """Items not asked (status missing_input): how many, and why, grouped by the reason with
    its particulars (ids, paths) left out, each with one example."""
    missing = [r for r in rows if r.status == "missing_input"]
    kinds: Counter[str] = Counter()
    example: dict[str, str] = {}
    for r in missing:
        reason = str(r.error or "no reason recorded")
        kind = re.sub(r"'[^']*'|\"[^\"]*\"|\b\d{3,}\b|(?<=under )\S+", "…", reason)
        kinds[kind] += 1
        example.setdefault(kind, reason)
    return {
        "count": len(missing),
        "reasons": [{"reason": k, "n": n, "example": example[k]} for k, n in kinds.most_common()],
    }


def summarise_run(run_dir: Path, judge: str | None = None) -> dict[str, Any]:
    run_dir = Path(run_dir)
    meta = orjson.loads((run_dir / RUN_JSON).read_bytes())
    task = _task(meta)
    all_rows = load_results(run_dir)
    rows = [r for r in all_rows if r.status != "missing_input"]  # asked; the rest apart
    found = judgements(run_dir)
    verdicts = {j: {q: r.get("verdict") for q, r in by_q.items()} for j, by_q in found.items()}
    chosen = pick_judge(found, judge)
    v = verdicts.get(chosen or "", {})
    judged_by = judge_models(found.get(chosen or "", {}))  # who gave the verdicts, not settings
    by_sport: dict[str, dict[str, Any]] = {}
    for sport in [*sorted({r.sport for r in rows}), "overall"]:
        rs = [r for r in rows if sport == "overall" or r.sport == sport]
        right = sum(v.get(r.qid) == "right" for r in rs)
        unjudged = sum(v.get(r.qid) is None for r in rs)
        by_sport[sport] = {
            "n": len(rs),
            "correct": right,
            "unjudged": unjudged,
            "accuracy": 100 * right / len(rs) if rs else None,
        }
    marks = human_verdicts(run_dir)
    human = {
        sport: human_counts([marks.get(r.qid) for r in rows if sport in ("overall", r.sport)])
        for sport in [*sorted({r.sport for r in rows}), "overall"]
    }
    tools = tool_calls_per_question(rows)
    tools_by_sport = {
        sport: tool_calls_per_question([r for r in rows if r.sport == sport])
        for sport in sorted({r.sport for r in rows})
    }
    outcome = {
        "overall": mean([float(r.turns) for r in rows]),
        "correct": mean([float(r.turns) for r in rows if v.get(r.qid) == "right"]),
        "incorrect": mean([float(r.turns) for r in rows if v.get(r.qid) != "right"]),
    }
    agreement = None
    if "llm" in verdicts and "equivalence" in verdicts:
        agreement = judge_agreement(rows, verdicts["llm"], verdicts["equivalence"])
    task_metrics: dict[str, Any] = {}
    if not task.judged:
        task_metrics = task.score(rows)
    return {
        "run_dir": str(run_dir),
        "task": meta["task"],
        "data": _data_line(meta),
        "stand_in": getattr(task, "stand_in", None),
        "missing_input": missing_inputs(all_rows),
        "mode": meta["mode"],
        "policy": meta["policy"],
        "preset": preset_label(meta.get("preset")),
        "stamp": run_stamp(meta, chosen).record(),
        "protocol": (meta.get("settings") or {}).get("agent", {}).get("tool_protocol")
        if meta.get("policy") == "llm"
        else None,
        "models": {**meta.get("models", {}), "judge": ", ".join(judged_by) or None},
        "judge": chosen,
        "judge_models": judged_by,
        "accuracy": by_sport,
        "human": human,
        "tool_calls_per_question": tools,
        "tool_calls_by_sport": tools_by_sport,
        "turns_by_outcome": outcome,
        "gold_evidence": gold_evidence(run_dir, rows) if meta["task"] == "t9" else None,
        "statuses": dict(Counter(r.status for r in all_rows)),
        "tokens": {
            "prompt": sum(r.prompt_tokens for r in rows),
            "completion": sum(r.completion_tokens for r in rows),
        },
        "wall_s": {
            "total": round(sum(r.wall_s for r in rows), 3),
            "per_question": mean([r.wall_s for r in rows]),
        },
        "episodes": episodes(rows),
        "judge_agreement": agreement,
        "task_metrics": task_metrics,
        "notes": _notes(rows, meta),
    }


def judge_agreement(
    rows: list[ResultRow], llm: dict[str, Any], equivalence: dict[str, Any]
) -> dict[str, Any]:
    """Agreement over the answers both judges decided. A row without an answer is Wrong for
    both without either reading it, and an abstention is no verdict: counting either would
    report agreement that no judge produced. What was left out is counted."""
    answered = [
        q
        for q in (r.qid for r in rows if (r.answer or "").strip())
        if q in llm and q in equivalence
    ]
    both = [q for q in answered if llm[q] is not None and equivalence[q] is not None]
    k, raw = cohen_kappa([str(llm[q]) for q in both], [str(equivalence[q]) for q in both])
    return {
        "n": len(both),
        "kappa": k,
        "raw_agreement": raw,
        "no_answer": sum(1 for r in rows if not (r.answer or "").strip()),
        "llm_unjudged": sum(1 for q in answered if llm[q] is None),
        "equivalence_unjudged": sum(1 for q in answered if equivalence[q] is None),
    }


def episodes(rows: list[ResultRow]) -> dict[str, Any]:
    """How the episodes went, whatever the judge says: the share with at least one tool call
    that ran without error, the share that reached an answer (status answered), median turns,
    tokens per question."""
    counted = [r for r in rows if r.valid_tool_calls is not None]
    n = len(rows)
    return {
        "n": n,
        "with_valid_tool_call": (
            sum((r.valid_tool_calls or 0) > 0 for r in counted) / len(counted) if counted else None
        ),
        "reached_answer": sum(r.status == "answered" for r in rows) / n if n else None,
        "median_turns": statistics.median(r.turns for r in rows) if rows else None,
        "tokens_per_question": (
            sum(r.prompt_tokens + r.completion_tokens for r in rows) / n if n else None
        ),
    }


def _data_line(meta: dict[str, Any]) -> str | None:
    """Which data the run answered: the corpus' items, or a published file and its format."""
    if not meta.get("data"):
        return None
    from playscout.eval.tasks.registry import formats_for

    fmt = next((f for f in formats_for(meta["task"]) if f.name == meta.get("format")), None)
    line = f"{meta['data']} ({meta.get('format') or 'format not recorded'})"
    if fmt is not None and fmt.from_paper:
        line += "; format written from the paper, no public file"
    return line


def _notes(rows: list[ResultRow], meta: dict[str, Any]) -> list[str]:
    notes = []
    errs: Counter[str] = Counter()
    for r in rows:
        for line in r.observation_errors:
            errs[line] += 1
    for msg, n in errs.most_common(3):
        notes.append(f"{n} tool observations were errors: {msg}")
    preset = meta.get("preset") or {}
    for dev in preset.get("deviations") or []:
        notes.append(f"setting over preset {preset.get('name')}: {dev}")
    if preset.get("deviations") and preset.get("paper_comparable"):
        notes.append("deviations from the paper preset: not comparable to SVI-Bench Table 15")
    if meta.get("task") == "t4":
        frames = (meta.get("frame_policy") or {}).get("frames_per_game")
        per_clip = (meta.get("frame_policy") or {}).get("frames_per_clip")
        notes.append(
            f"T4: best of k={meta.get('best_of_k', '?')} candidates; a full-game video sends "
            + (f"{frames} frames" if frames else f"{per_clip} frames (qa.frames_per_clip)")
        )
    if meta.get("policy") == "workflow":
        notes.append(
            "policy workflow: an offline baseline (rule routing, extractive readers), not an LLM agent"
        )
    return notes


def tool_calls_per_question(rows: list[ResultRow]) -> dict[str, float]:
    """Mean calls of each tool per question (Table 39; video_qa_oracle counts as video_qa)."""
    names = sorted({SAME_COLUMN.get(t, t) for r in rows for t in r.tool_calls} | set(TOOLS))
    out: dict[str, float] = {}
    for name in names:
        calls = [
            float(sum(n for t, n in r.tool_calls.items() if SAME_COLUMN.get(t, t) == name))
            for r in rows
        ]
        out[name] = mean(calls) or 0.0
    return out


def _fmt(x: Any, pct: bool = False) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.1f}" if pct else f"{x:.2f}"
    return str(x)


def _judge_words(s: dict[str, Any]) -> str:
    """The judge as the verdicts say: its kind and the models that gave them."""
    models = s.get("judge_models") or []
    return (s["judge"] or "none") + (f" ({', '.join(models)})" if models else "")


def _short_stamp(record: dict[str, Any]) -> str:
    """A table column's stamp: the verdict with its one reason, or how many there are; every
    reason is on the run's line above the tables (a heading holding seven is unreadable)."""
    n = len(record.get("reasons") or ())
    if record.get("comparable") or n == 1:
        return stamp_line(record)
    return f"not comparable ({n} reasons, listed above)"


def run_labels(summaries: list[dict[str, Any]]) -> list[str]:
    """One distinct label per run, for table columns, legends and plot file names: `mode
    (policy)`, plus the run directory's name where two runs share both, plus `#n` where even
    that is shared (two runs in one mode must not overwrite each other's plots)."""
    labels = [f"{s['mode']} ({s['policy']})" for s in summaries]
    seen = Counter(labels)
    labels = [
        lab if seen[lab] == 1 else f"{lab} {Path(s['run_dir']).name}"
        for lab, s in zip(labels, summaries, strict=True)
    ]
    if len(set(labels)) < len(labels):
        labels = [f"{lab} #{n}" for n, lab in enumerate(labels, 1)]
    return labels


def markdown(summaries: list[dict[str, Any]]) -> str:
    """One table per section; several summaries become side-by-side columns (default vs oracle)."""
    heads = [
        f"{label}, preset {s['preset']}"
        + (f", {s['protocol']} protocol" if s.get("protocol") else "")
        + (f", {_short_stamp(s['stamp'])}" if s.get("stamp") else "")
        for label, s in zip(run_labels(summaries), summaries, strict=True)
    ]
    presets = ", ".join(dict.fromkeys(s["preset"] for s in summaries))
    lines = [f"# Eval report: {summaries[0]['task']} (preset {presets})", ""]
    for stand_in in dict.fromkeys(s["stand_in"] for s in summaries if s.get("stand_in")):
        lines += [f"> **Stand-in, not the paper's system:** {stand_in}", ""]
    for head, s in zip(heads, summaries, strict=True):
        if s.get("data"):
            lines.append(f"- data ({head}): {s['data']}")
    for head, s in zip(heads, summaries, strict=True):
        lines.append(
            f"- {head}: `{s['run_dir']}`, judge: {_judge_words(s)}, models: "
            + (", ".join(f"{k}={v}" for k, v in s["models"].items() if v) or "none (offline)")
            + (f"; {stamp_line(s['stamp'])}" if s.get("stamp") else "")
        )
    lines += _per_sport_table(
        f"## Accuracy (%) per sport, preset {presets}",
        heads,
        [s["accuracy"] for s in summaries],
        lambda a: (
            f"{_fmt(a['accuracy'], True)} ({a['correct']}/{a['n']}, unjudged {a['unjudged']})"
        ),
    )
    lines += _human_table(summaries, heads)
    lines += [
        "",
        f"## Tool calls per question (Table 39), preset {presets}",
        "",
        "| sport | tool | " + " | ".join(heads) + " |",
        "|---|---|" + "---|" * len(heads),
    ]
    tools = list(dict.fromkeys(k for s in summaries for k in s["tool_calls_per_question"]))
    by_sport = list(dict.fromkeys(k for s in summaries for k in s.get("tool_calls_by_sport", {})))
    for sport in [*by_sport, "overall"]:
        for t in tools:
            cells = [
                s["tool_calls_per_question"].get(t)
                if sport == "overall"
                else s.get("tool_calls_by_sport", {}).get(sport, {}).get(t)
                for s in summaries
            ]
            lines.append(f"| {sport} | {t} | " + " | ".join(_fmt(c) for c in cells) + " |")
    lines += [
        "",
        f"## Turns by outcome (Table 40), preset {presets}",
        "",
        "| outcome | " + " | ".join(heads) + " |",
        "|---|" + "---|" * len(heads),
    ]
    for o in ("overall", "correct", "incorrect"):
        lines.append(
            f"| {o} | " + " | ".join(_fmt(s["turns_by_outcome"].get(o)) for s in summaries) + " |"
        )
    if any(s.get("gold_evidence") for s in summaries):
        lines += [
            "",
            f"## Gold evidence reached (T9 questions with gold ids), preset {presets}",
            "",
            "| step | " + " | ".join(heads) + " |",
            "|---|" + "---|" * len(heads),
        ]
        for step in ("n", *STEPS):
            shares = [(s.get("gold_evidence") or {}).get(step) for s in summaries]
            lines.append(f"| {step} | " + " | ".join(_fmt(c) for c in shares) + " |")
    lines += [
        "",
        f"## Status, tokens, time, preset {presets}",
        "",
        "| | " + " | ".join(heads) + " |",
        "|---|" + "---|" * len(heads),
    ]
    statuses = sorted({k for s in summaries for k in s["statuses"]})
    for st in statuses:
        lines.append(
            f"| status {st} | "
            + " | ".join(str(s["statuses"].get(st, 0)) for s in summaries)
            + " |"
        )
    lines.append(
        "| tokens prompt/completion | "
        + " | ".join(f"{s['tokens']['prompt']}/{s['tokens']['completion']}" for s in summaries)
        + " |"
    )
    for key, label in (
        ("with_valid_tool_call", "episodes with a valid tool call"),
        ("reached_answer", "episodes reaching an answer"),
        ("median_turns", "median turns"),
        ("tokens_per_question", "tokens per question"),
    ):
        lines.append(
            f"| {label} | " + " | ".join(_fmt(s["episodes"].get(key)) for s in summaries) + " |"
        )
    lines.append(
        "| wall s total (per question) | "
        + " | ".join(
            f"{s['wall_s']['total']:.1f} ({_fmt(s['wall_s']['per_question'])})" for s in summaries
        )
        + " |"
    )
    for head, s in zip(heads, summaries, strict=True):
        gone = s.get("missing_input") or {"count": 0}
        if gone["count"]:
            lines += [
                "",
                f"## Items not asked: missing_input ({head}): {gone['count']}",
                "",
                "Counted apart: in no accuracy or score above.",
                "",
                "| n | reason (example) |",
                "|---|---|",
            ]
            for r in gone["reasons"][:10]:
                lines.append(f"| {r['n']} | {r['example']} |")
    for head, s in zip(heads, summaries, strict=True):
        if s["judge_agreement"]:
            a = s["judge_agreement"]
            lines.append(
                f"\nJudge agreement ({head}): kappa {_fmt(a['kappa'])}, raw "
                f"{_fmt(a['raw_agreement'])} over {a['n']} answers both judges decided (left "
                f"out: {a['no_answer']} without an answer, {a['llm_unjudged']} the LLM judge and "
                f"{a['equivalence_unjudged']} the equivalence judge could not judge)"
            )
        if s["task_metrics"]:
            lines += [
                "",
                f"## Task metrics ({head})",
                "",
                "```",
                orjson.dumps(
                    s["task_metrics"], option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS
                ).decode(),
                "```",
            ]
        for n in s["notes"]:
            lines.append(f"\n> {head}: {n}")
    lines.append("\nAccuracy counts unjudged answers as not correct; the unjudged count is shown.")
    return "\n".join(lines) + "\n"


def _marked(h: dict[str, int] | None) -> int:
    return sum(h.get(k, 0) for k in ("right", "wrong", "unclear")) if h else 0


def _human_table(summaries: list[dict[str, Any]], heads: list[str]) -> list[str]:
    """People's verdicts (eval/storage/human.py) per sport, their own column beside no judge's: only
    when someone marked an answer."""
    if not any(_marked((s.get("human") or {}).get("overall")) for s in summaries):
        return []
    return _per_sport_table(
        "## Human verdicts per sport (right / wrong / unclear of marked; not the judge's)",
        heads,
        [s.get("human") or {} for s in summaries],
        lambda h: (
            f"{h['right']} / {h['wrong']} / {h['unclear']} of {_marked(h)} "
            f"(unmarked {h['unmarked']})"
        ),
    )


def _per_sport_table(
    title: str,
    heads: list[str],
    per_run: list[dict[str, Any]],
    cell: Callable[[dict[str, Any]], str],
) -> list[str]:
    """A section with one row per sport (in first-seen order, `overall` among them) and one
    column per run: `cell` of the run's entry for that sport, `-` where it has none."""
    lines = ["", title, "", "| sport | " + " | ".join(heads) + " |", "|---|" + "---|" * len(heads)]
    for sport in dict.fromkeys(k for entries in per_run for k in entries):
        cells = [cell(e[sport]) if e.get(sport) else "-" for e in per_run]
        lines.append(f"| {sport} | " + " | ".join(cells) + " |")
    return lines


def write_report(
    run_dirs: list[Path], out_dir: Path | None = None, judge: str | None = None, plots: bool = True
) -> dict[str, Any]:
    summaries = [summarise_run(require_run_dir(d), judge) for d in run_dirs]
    out = Path(out_dir or run_dirs[0])
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.md").write_text(markdown(summaries))
    write_json_atomic(out / "report.json", summaries if len(summaries) > 1 else summaries[0])
    written = ["report.md", "report.json"]
    if plots:
        from playscout.eval.results.plots import write_plots

        written += write_plots(summaries, [Path(d) for d in run_dirs], out, run_labels(summaries))
    return {"out": str(out), "files": written, "summaries": summaries}
