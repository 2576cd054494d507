"""Running one tool for the agent: off the event loop, never raising, with an id summary.

Tools are synchronous (QA tools may run their own event loop inside), so they run in a worker
thread. `call_tool` turns argument and ToolError failures into observations; anything else a
tool raises is caught here too, so one broken tool cannot end a run. `recorded_call` is the one
way a tool call becomes trajectory events (the LLM loop, the workflow baseline and the eval's
direct routes), so timelines and tool counts read every run the same way.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, NamedTuple

from pydantic import BaseModel

from playscout.agent.trajectory import Observation, ToolCallEvent, TrajectoryWriter
from playscout.tools.registry import call_tool
from playscout.tools.tool import Tool, ToolContext, ToolResult

_ID_KEYS = ("doc_id", "clip_id", "video_id")
HIGHLIGHT_CHARS = 240  # of a hit's first highlight kept in the trajectory


def _safe_call(tools: Mapping[str, Tool], ctx: ToolContext, name: str, args: Any) -> ToolResult:
    try:
        return call_tool(dict(tools), ctx, name, args)
    except Exception as e:
        return ToolResult.failure(name, f"{name} failed: {type(e).__name__}: {e}")


async def run_tool(
    tools: Mapping[str, Tool], ctx: ToolContext, name: str, args: Any, *, threaded: bool = True
) -> tuple[ToolResult, float]:
    start = time.perf_counter()
    if threaded:
        result = await asyncio.to_thread(_safe_call, tools, ctx, name, args)
    else:
        result = _safe_call(tools, ctx, name, args)
    return result, time.perf_counter() - start


def _walk(value: Any, out: dict[str, list[Any]], depth: int = 0) -> None:
    if depth > 4:
        return
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json", exclude={"record"} if depth == 0 else None)
    if isinstance(value, dict):
        ident = next((str(value[k]) for k in _ID_KEYS if value.get(k)), None)
        if ident is None and "answer" in value and value.get("id"):
            ident = str(value["id"])  # QA items: {id, answer, confidence, evidence}
        if ident is not None and "answer" in value:
            answer = {
                "id": ident,
                "answer": value.get("answer"),
                "confidence": value.get("confidence"),
                "evidence": value.get("evidence"),
            }
            if value.get("frames"):  # video_qa: which frames the VLM was sent (times, size)
                answer["frames"] = value["frames"]
            out["answers"].append(answer)
        elif ident is not None:
            key = "doc_ids" if "doc_id" in value else "clip_ids"
            out[key].append(ident)
        for k, v in value.items():
            if k not in ("record", "highlights") and isinstance(v, (dict, list, BaseModel)):
                _walk(v, out, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _walk(item, out, depth + 1)


def _cut(text: str) -> str:
    text = " ".join(str(text).split())
    return text[:HIGHLIGHT_CHARS] + ("…" if len(text) > HIGHLIGHT_CHARS else "")


def _hit(rank: int, ident: str, hit: Any) -> dict[str, Any]:
    """A search hit as the viewer shows it: rank, score, the start of its first highlight,
    and for a clip where it sits in its game's video and the start of its caption and of what
    was heard in it, so a clip reads as text where no video file exists."""
    out: dict[str, Any] = {"id": ident, "rank": rank, "score": getattr(hit, "score", None)}
    highlights = getattr(hit, "highlights", None) or []
    if highlights:
        out["highlight"] = _cut(highlights[0])
    record: Any = getattr(hit, "record", None)
    if hasattr(record, "video_start"):
        out["video"] = [record.video_start, record.video_end]
        caption = _cut(record.caption) if record.caption else None
        heard = _cut(record.observed_text()) if record.observed_text() else None
        if caption:
            out["caption"] = caption
        if heard and heard != caption:
            out["heard"] = heard
        if "highlight" in out and out["highlight"] in (caption, heard):
            del out["highlight"]  # the whole text matched: said once
    return out


def data_summary(data: Any) -> dict[str, Any]:
    """Ids a run touched (documents, clips) and the QA answers, for the trajectory and the
    evidence list: typed results reduced to what a reader needs, never the full records."""
    if data is None:
        return {}
    out: dict[str, list[Any]] = {"doc_ids": [], "clip_ids": [], "answers": [], "hits": []}
    if hasattr(data, "hits"):
        for rank, hit in enumerate(data.hits, 1):
            key = "doc_ids" if hasattr(hit, "doc_id") else "clip_ids"
            ident = str(getattr(hit, "doc_id", None) or getattr(hit, "clip_id", ""))
            out[key].append(ident)
            out["hits"].append(_hit(rank, ident, hit))
    else:
        _walk(data, out)
    return {k: v for k, v in out.items() if v}


class Shown(NamedTuple):
    """What the model is shown of an observation: the text, its tokens (0 when nobody counts:
    no model reads it) and, when the text was cut to fit, its token count before the cut."""

    text: str
    tokens: int = 0
    cut_from_tokens: int | None = None


class RecordedCall(NamedTuple):
    result: ToolResult
    summary: dict[str, Any]  # data_summary(result.data): the ids the call touched
    latency_s: float
    shown: Shown


async def recorded_call(
    writer: TrajectoryWriter,
    tools: Mapping[str, Tool],
    ctx: ToolContext,
    turn: int,
    name: str,
    arguments: Any,
    *,
    call_id: str | None = None,
    ignored_calls: int = 0,
    threaded: bool = True,
    show: Callable[[str], Shown] = Shown,
) -> RecordedCall:
    """One tool call as trajectory events: a ToolCallEvent before the tool runs (live listeners
    see it start), then the call (never raising), then an Observation of what the model is
    shown (`show` maps the tool's observation text to that; by default all of it, uncounted)
    with the id summary of the result."""
    return await recorded_step(
        writer,
        turn,
        name,
        arguments,
        lambda: run_tool(tools, ctx, name, arguments, threaded=threaded),
        call_id=call_id,
        ignored_calls=ignored_calls,
        show=show,
    )


async def recorded_step(
    writer: TrajectoryWriter,
    turn: int,
    name: str,
    arguments: Any,
    run: Callable[[], Awaitable[tuple[ToolResult, float]]],
    *,
    call_id: str | None = None,
    ignored_calls: int = 0,
    show: Callable[[str], Shown] = Shown,
) -> RecordedCall:
    """`recorded_call` for any awaitable that returns (result, latency): also the eval's
    direct question about video files, which is no registered tool (the agent never gets it).
    A call the model gave no id (the workflow policy, the text protocol, direct routes) gets
    `<run id>-<turn>`, so every tool span and event carries a call id."""
    writer.emit(
        ToolCallEvent,
        turn=turn,
        name=name,
        arguments=arguments,
        call_id=call_id or f"{writer.run_id}-{turn}",
        ignored_calls=ignored_calls,
    )
    result, latency = await run()
    shown = show(result.observation)
    summary = data_summary(result.data)
    writer.emit(
        Observation,
        turn=turn,
        name=name,
        text=shown.text,
        tokens=shown.tokens,
        cut_from_tokens=shown.cut_from_tokens,
        data=summary,
        latency_s=latency,
        error=result.error,
        model_calls=result.model_calls,
    )
    return RecordedCall(result, summary, latency, shown)
