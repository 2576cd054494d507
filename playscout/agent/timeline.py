"""A trajectory as timeline rows (turn, step, detail, latency, tokens) for the CLI and the
viewer; plain strings so any renderer can draw them."""

from __future__ import annotations

import json

from playscout.agent.trajectory import (
    ContextEvent,
    ErrorEvent,
    Event,
    FinalAnswer,
    ModelCall,
    Observation,
    RunStart,
    ToolCallEvent,
)


def _short(text: str | None, width: int) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."


def timeline_rows(events: list[Event], width: int = 120) -> list[tuple[str, str, str, str, str]]:
    rows: list[tuple[str, str, str, str, str]] = []
    for e in events:
        if isinstance(e, RunStart):
            detail = (
                f"{e.policy} | {e.model or '-'} | {e.sport} {e.mode} | {e.tool_protocol or '-'}"
            )
            rows.append(("", "start", _short(f"{e.question} ({detail})", width), "", ""))
        elif isinstance(e, ModelCall):
            tokens = f"{e.prompt_tokens}+{e.completion_tokens} (ctx {e.context_tokens})"
            forced = f" [forced: {e.forced_final}]" if e.forced_final else ""
            rows.append(
                (
                    str(e.turn),
                    "model" + forced,
                    _short(e.content, width),
                    f"{e.latency_s:.3f}",
                    tokens,
                )
            )
        elif isinstance(e, ToolCallEvent):
            args = e.arguments if isinstance(e.arguments, str) else json.dumps(e.arguments)
            more = f" (+{e.ignored_calls} ignored)" if e.ignored_calls else ""
            rows.append((str(e.turn), f"call {e.name}{more}", _short(args, width), "", ""))
        elif isinstance(e, Observation):
            step = (
                f"obs {e.name}"
                + (" ERROR" if e.error else "")
                + (" [cut]" if e.cut_from_tokens else "")
            )
            rows.append(
                (str(e.turn), step, _short(e.text, width), f"{e.latency_s:.3f}", str(e.tokens))
            )
        elif isinstance(e, ErrorEvent):
            kind = f"error {e.kind}" + (" (fatal)" if e.fatal else "")
            rows.append((str(e.turn or ""), kind, _short(e.message, width), "", ""))
        elif isinstance(e, ContextEvent):
            detail = (
                f"dropped {e.dropped_turns} turn(s); {e.context_tokens}/{e.budget_tokens} tokens"
            )
            rows.append((str(e.turn), "context", detail, "", ""))
        elif isinstance(e, FinalAnswer):
            forced = f" forced={e.forced_final}" if e.forced_final else ""
            detail = f"{e.status}{forced}: {e.answer if e.answer is not None else '-'}"
            rows.append(("", "final", _short(detail, width), f"{e.wall_s:.3f}", ""))
    return rows
