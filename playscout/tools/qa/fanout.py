"""The steps every QA tool shares: checking the ids, asking a model (bounded, with a deadline),
the offline extractive reader, the bounded concurrent fan-out, and the typed result.

Fixes over the reference (§3.2, §3.4-3.6, §7): generation settings applied; a cap on ids;
bounded fan-out with timeouts and one shared client per endpoint; no confidence invented for
unparseable output; no asyncio.run per call."""

from __future__ import annotations

import asyncio
import base64
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from playscout.clients.answers import UNPARSEABLE, ParsedAnswer, parse_answer, strip_reasoning
from playscout.clients.calls import CallRecord, endpoint_origin
from playscout.clients.chat import (
    ChatClient,
    ChatMessage,
    ChatParams,
    ChatResponse,
    ImagePart,
    ModelError,
    Usage,
)
from playscout.config import ModelEndpoint
from playscout.search.backend_api import SearchError
from playscout.tools.qa.results import QAItem, QAResult, render_qa
from playscout.tools.readers import extractive_answer
from playscout.tools.tool import ToolContext, ToolError, ToolResult

# Slack on top of the endpoint's per-request timeouts, for backoff between retries.
_DEADLINE_SLACK_S = 10.0

Job = Callable[[], Awaitable[QAItem]]
MISSING_CLIP = "clip {id} not found; use clip ids from search_videos"


def deadline_s(ep: ModelEndpoint) -> float:
    """The client enforces per-request timeouts; this outer bound covers its retries and guards
    clients that enforce none."""
    return ep.timeout_s * (ep.max_retries + 1) + _DEADLINE_SLACK_S


def check_ids(ids: list[str], limit: int, kind: str, query: str) -> tuple[list[str], list[str]]:
    if not query.strip():
        raise ToolError("query is empty: ask one question")
    cleaned = [i.strip() for i in ids if i and i.strip()]
    if not cleaned:
        raise ToolError(f"give at least one {kind} id")
    unique = list(dict.fromkeys(cleaned))
    notes = (
        [f"{len(cleaned) - len(unique)} repeated id(s) asked once"]
        if len(unique) < len(cleaned)
        else []
    )
    if len(unique) > limit:
        raise ToolError(
            f"asked about {len(unique)} {kind}s; at most {limit} per call: "
            f"ask about fewer (the most relevant first), or split into several calls"
        )
    return unique, notes


async def ask(
    client: ChatClient,
    messages: list[ChatMessage],
    ep: ModelEndpoint,
    item: QAItem,
    *,
    parse: bool = True,
) -> QAItem:
    """`parse=False`: the reply is the answer as written (reasoning dropped), for prompts that
    fix their own answer format (a benchmark's MCQ prompt), not the JSON the tools ask for."""
    t0, started = time.perf_counter(), time.time()
    deadline = deadline_s(ep)
    resp = None
    try:
        resp = await asyncio.wait_for(
            client.chat(messages, params=ChatParams.from_endpoint(ep)), deadline
        )
    except TimeoutError:
        item.error = f"model call timed out after {deadline:g}s"
        return item
    except ModelError as e:
        item.error = f"QA failed: {e}"
        return item
    finally:
        item.latency_s = round(time.perf_counter() - t0, 4)
        item.call = _call_record(client, messages, item, started, resp)
    if not parse:
        raw = ParsedAnswer(answer=strip_reasoning(resp.content or "").strip())
        return fill(item, raw, resp.usage, resp.finish_reason)
    return fill(item, parse_answer(resp.content), resp.usage, resp.finish_reason)


def _call_record(
    client: ChatClient,
    messages: list[ChatMessage],
    item: QAItem,
    started: float,
    resp: ChatResponse | None,
) -> CallRecord:
    """What the trace and the trajectory keep of one QA model call (never the prompt)."""
    usage = resp.usage if resp is not None else None
    return CallRecord(
        model=client.model,
        subject=item.id,
        started=started,
        latency_s=item.latency_s or 0.0,
        prompt_tokens=usage.prompt_tokens if usage else 0,
        completion_tokens=usage.completion_tokens if usage else 0,
        finish_reason=resp.finish_reason if resp is not None else None,
        cut_from_bytes=resp.cut_from_bytes if resp is not None else None,
        error=item.error,
        server=endpoint_origin(getattr(client, "base_url", None)),
        images=sum(
            isinstance(p, ImagePart)
            for m in messages
            if not isinstance(m.content, str)
            for p in m.content
        ),
    )


def fill(
    item: QAItem, parsed: ParsedAnswer, usage: Usage | None = None, finish: str | None = None
) -> QAItem:
    item.answer, item.confidence, item.evidence = parsed.answer, parsed.confidence, parsed.evidence
    item.parsed, item.usage, item.finish_reason = parsed.parsed, usage, finish
    if not parsed.parsed:
        item.notes.append(UNPARSEABLE)
    if finish == "length":
        item.notes.append("model hit its max_tokens budget (finish_reason=length)")
    if parsed.parsed is False and not parsed.answer:
        item.notes.append("no text outside the model's reasoning")
    return item


async def extract(text: str, query: str, item: QAItem) -> QAItem:
    t0 = time.perf_counter()
    parsed = await asyncio.to_thread(extractive_answer, text, query)
    item.latency_s = round(time.perf_counter() - t0, 4)
    return fill(item, parsed)


async def fan_out(jobs: list[Job], limit: int) -> list[QAItem]:
    """At most `limit` in flight; results in request order whatever finishes first."""
    sem = asyncio.Semaphore(limit)

    async def one(job: Job) -> QAItem:
        async with sem:
            return await job()

    return list(await asyncio.gather(*(one(j) for j in jobs)))


def ready(item: QAItem) -> Job:
    async def done() -> QAItem:
        return item

    return done


def per_record(
    ids: list[str], records: Sequence[Any], missing: str, job: Callable[[QAItem, Any], Job]
) -> list[Job]:
    """One job per id, in order: `job(item, record)` where the record exists; an id without one
    is answered at once with the error `missing` (its `{id}` filled)."""
    jobs = []
    for id_, record in zip(ids, records, strict=True):
        item = QAItem(id=id_)
        if record is None:
            item.error = missing.format(id=id_)
            jobs.append(ready(item))
        else:
            jobs.append(job(item, record))
    return jobs


def data_uri(jpeg: bytes) -> str:
    return "data:image/jpeg;base64," + base64.b64encode(jpeg).decode("ascii")


def result(
    tool: str,
    ctx: ToolContext,
    query: str,
    source: str,
    items: list[QAItem],
    notes: list[str],
    t0: float,
) -> ToolResult:
    usage = Usage(
        prompt_tokens=sum(i.usage.prompt_tokens for i in items if i.usage),
        completion_tokens=sum(i.usage.completion_tokens for i in items if i.usage),
    )
    qa = QAResult(
        tool=tool,
        query=query,
        mode=ctx.mode,
        source=source,
        items=items,
        notes=notes,
        latency_s=round(time.perf_counter() - t0, 4),
        usage=usage,
    )
    calls = [i.call for i in items if i.call is not None]
    return ToolResult(tool=tool, observation=render_qa(qa), data=qa, notes=notes, model_calls=calls)


def require_one_known(ids: list[str], records: Sequence[Any], kind: str, search: str) -> None:
    """A call none of whose ids exist failed: the model invented them, and it must see an
    error (a report counting valid calls must not count this one). Some unknown ids among
    known ones are reported per id instead."""
    if ids and all(r is None for r in records):
        shown = ", ".join(ids[:3]) + (f" (+{len(ids) - 3} more)" if len(ids) > 3 else "")
        raise ToolError(f"no {kind} with the id(s) {shown}; use {kind} ids from {search} results")


def clip_records(ctx: ToolContext, ids: list[str], include_caption: bool) -> list[Any]:
    try:
        records = list(ctx.backend.get_clips(ctx.sport, ids, include_caption=include_caption))
    except SearchError as e:
        raise ToolError(str(e)) from None
    require_one_known(ids, records, "clip", "search_videos")
    return records
