"""document_qa and video_qa (paper Figs. 44-46): ask a model one question about each of a few
documents or clips, concurrently, and render the answers compactly.

Fixes over the reference (§3.2, §3.4-3.6, §7): documents read whole in original order and cut
in tokens; generation settings applied; a cap on ids; bounded fan-out with timeouts and one
shared client per endpoint; no confidence invented for unparseable output; no asyncio.run per
call. Without a configured document/caption model an extractive reader answers and says so;
without a VLM, default-mode video_qa refuses (nothing offline can honestly look at pixels).
"""

from __future__ import annotations

import asyncio
import base64
import functools
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import AliasChoices, BaseModel, Field, field_validator

from playscout.clients.answers import UNPARSEABLE, ParsedAnswer, parse_answer, strip_reasoning
from playscout.clients.chat import (
    ChatClient,
    ChatMessage,
    ChatParams,
    ImagePart,
    ModelError,
    TextPart,
    Usage,
)
from playscout.clients.sync import run_sync
from playscout.config import ModelEndpoint, QASettings
from playscout.corpus.errors import CorpusError
from playscout.search.backend_api import SearchError
from playscout.tools.prompts import render
from playscout.tools.readers import NO_EVIDENCE, extractive_answer
from playscout.tools.tokens import token_counter
from playscout.tools.tool import Mode, ModelSet, ToolArgs, ToolContext, ToolError, ToolResult

NO_DOC_LLM = "no document LLM configured: extractive reader; answer is the best-matching sentence"
NO_CAPTION_LLM = (
    "no caption LLM configured: extractive reader over the clip's ground-truth captions; "
    "answer is the best-matching caption sentence"
)
NO_VLM = "no VLM configured for video_qa; configure qa.vlm or use oracle mode"
NO_CORPUS = "no corpus configured: video_qa needs the clip files (set corpus_dir)"
NO_CAPTIONS = "No text data found for this clip."
# Longest answer / evidence shown in an observation; the typed data keeps everything.
_ANSWER_CHARS = 600
_EVIDENCE_CHARS = 400
# Slack on top of the endpoint's per-request timeouts, for backoff between retries.
_DEADLINE_SLACK_S = 10.0


def _as_list(value: Any) -> Any:
    """Models often write one id where a list is expected."""
    if isinstance(value, (str, int)) and value != "":
        return [str(value)]
    return value


class DocumentQAArgs(ToolArgs):
    doc_ids: list[str] = Field(
        ..., description="Document ids from search_documents results, most relevant first."
    )
    query: str = Field(..., description="One question, asked of each document separately.")

    _lists = field_validator("doc_ids", mode="before")(_as_list)


class VideoQAArgs(ToolArgs):
    video_ids: list[str] = Field(
        ...,
        validation_alias=AliasChoices("video_ids", "clip_ids"),
        description="Clip ids from search_videos results, most relevant first.",
    )
    query: str = Field(..., description="One question, asked of each clip separately.")

    _lists = field_validator("video_ids", mode="before")(_as_list)


class SentFrames(BaseModel):
    """Which frames a VLM was sent, by reference (never the pixels): their times in the clip
    file and the JPEG settings, enough to show them again (media.timed_frames.jpeg_at)."""

    times: list[float]
    long_side: int
    quality: int


class QAItem(BaseModel):
    """The answer about one id, or why there is none."""

    id: str
    answer: str | None = None
    confidence: float | None = None
    evidence: str | None = None
    parsed: bool | None = None  # False: answer is the model's raw text
    error: str | None = None
    notes: list[str] = Field(default_factory=list)
    latency_s: float | None = None
    usage: Usage | None = None
    finish_reason: str | None = None
    frames: SentFrames | None = None  # video_qa in default mode


class QAResult(BaseModel):
    tool: str
    query: str
    mode: Mode
    source: str  # "model <name>" or "extractive reader"
    items: list[QAItem]
    notes: list[str] = Field(default_factory=list)
    latency_s: float = 0.0
    usage: Usage = Field(default_factory=Usage)


# ---------------------------------------------------------------- models from settings


@functools.lru_cache(maxsize=32)
def _client_for(endpoint_json: str) -> ChatClient:
    from playscout.clients.openai_chat import OpenAIChatClient

    return OpenAIChatClient.from_endpoint(ModelEndpoint.model_validate_json(endpoint_json))


def models_from_settings(qa: QASettings) -> ModelSet:
    """Clients for the configured endpoints; equal endpoints share one client object."""

    def pick(ep: ModelEndpoint) -> ChatClient | None:
        return _client_for(ep.model_dump_json()) if ep.configured else None

    return ModelSet(
        document_llm=pick(qa.document_llm), vlm=pick(qa.vlm), caption_llm=pick(qa.caption_llm)
    )


def _params(ep: ModelEndpoint) -> ChatParams:
    return ChatParams.from_endpoint(ep)


def _deadline_s(ep: ModelEndpoint) -> float:
    """The client enforces per-request timeouts; this outer bound covers its retries and guards
    clients that enforce none."""
    return ep.timeout_s * (ep.max_retries + 1) + _DEADLINE_SLACK_S


# ---------------------------------------------------------------- shared steps


def _check_ids(ids: list[str], limit: int, kind: str, query: str) -> tuple[list[str], list[str]]:
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


async def _ask(
    client: ChatClient,
    messages: list[ChatMessage],
    ep: ModelEndpoint,
    item: QAItem,
    *,
    parse: bool = True,
) -> QAItem:
    """`parse=False`: the reply is the answer as written (reasoning dropped), for prompts that
    fix their own answer format (a benchmark's MCQ prompt), not the JSON the tools ask for."""
    t0 = time.perf_counter()
    deadline = _deadline_s(ep)
    try:
        resp = await asyncio.wait_for(client.chat(messages, params=_params(ep)), deadline)
    except TimeoutError:
        item.error = f"model call timed out after {deadline:g}s"
        return item
    except ModelError as e:
        item.error = f"QA failed: {e}"
        return item
    finally:
        item.latency_s = round(time.perf_counter() - t0, 4)
    if not parse:
        raw = ParsedAnswer(answer=strip_reasoning(resp.content or "").strip())
        return _fill(item, raw, resp.usage, resp.finish_reason)
    return _fill(item, parse_answer(resp.content), resp.usage, resp.finish_reason)


def _fill(
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


async def _extract(text: str, query: str, item: QAItem) -> QAItem:
    t0 = time.perf_counter()
    parsed = await asyncio.to_thread(extractive_answer, text, query)
    item.latency_s = round(time.perf_counter() - t0, 4)
    return _fill(item, parsed)


async def _fan_out(jobs: list[Callable[[], Awaitable[QAItem]]], limit: int) -> list[QAItem]:
    """At most `limit` in flight; results in request order whatever finishes first."""
    sem = asyncio.Semaphore(limit)

    async def one(job: Callable[[], Awaitable[QAItem]]) -> QAItem:
        async with sem:
            return await job()

    return list(await asyncio.gather(*(one(j) for j in jobs)))


def _ready(item: QAItem) -> Callable[[], Awaitable[QAItem]]:
    async def done() -> QAItem:
        return item

    return done


def _result(
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
    result = QAResult(
        tool=tool,
        query=query,
        mode=ctx.mode,
        source=source,
        items=items,
        notes=notes,
        latency_s=round(time.perf_counter() - t0, 4),
        usage=usage,
    )
    return ToolResult(tool=tool, observation=render_qa(result), data=result, notes=notes)


def _cut(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit] + " ...(truncated)"


def render_qa(result: QAResult) -> str:
    kind = "documents" if result.tool == "document_qa" else "clips"
    lines = [
        f'{result.tool} over {len(result.items)} {kind} via {result.source} | "{result.query}"'
    ]
    lines += [f"note: {n}" for n in result.notes]
    for item in result.items:
        if item.error:
            lines.append(f"{item.id}: error: {item.error}")
            continue
        conf = "null" if item.confidence is None else f"{item.confidence:g}"
        line = f"{item.id}: answer={_cut(item.answer or '', _ANSWER_CHARS)} (confidence {conf})"
        if item.evidence:
            line += f" evidence: {_cut(item.evidence, _EVIDENCE_CHARS)}"
        if item.notes:
            line += " | note: " + "; ".join(item.notes)
        lines.append(line)
    return "\n".join(lines)


def _require_one_known(ids: list[str], records: Sequence[Any], kind: str, search: str) -> None:
    """A call none of whose ids exist failed: the model invented them, and it must see an
    error (a report counting valid calls must not count this one). Some unknown ids among
    known ones are reported per id instead."""
    if ids and all(r is None for r in records):
        shown = ", ".join(ids[:3]) + (f" (+{len(ids) - 3} more)" if len(ids) > 3 else "")
        raise ToolError(f"no {kind} with the id(s) {shown}; use {kind} ids from {search} results")


# ---------------------------------------------------------------- document_qa


async def document_qa_async(ctx: ToolContext, args: DocumentQAArgs) -> ToolResult:
    t0 = time.perf_counter()
    ids, notes = _check_ids(args.doc_ids, ctx.qa.max_ids, "document", args.query)
    query = args.query.strip()
    try:
        records = ctx.backend.get_documents(ctx.sport, ids)
    except SearchError as e:
        raise ToolError(str(e)) from None
    _require_one_known(ids, records, "document", "search_documents")
    counter = token_counter(getattr(ctx.qa, "tokenizer_path", None))
    client, ep = ctx.models.document_llm, ctx.qa.document_llm
    if client is None:
        notes.append(NO_DOC_LLM)
    jobs: list[Callable[[], Awaitable[QAItem]]] = []
    for doc_id, record in zip(ids, records, strict=True):
        item = QAItem(id=doc_id)
        if record is None:
            item.error = f"document {doc_id} not found; use doc ids from search_documents"
            jobs.append(_ready(item))
            continue
        cut = counter.truncate(record.text, ctx.qa.max_document_tokens)
        if cut.cut:
            item.notes.append(
                f"document cut to its first {cut.tokens} of {cut.total_tokens} tokens"
            )
        if client is None:
            jobs.append(functools.partial(_extract, cut.text, query, item))
        else:
            prompt = render("document_qa", document_content=cut.text, query=query)
            msgs = [ChatMessage(role="user", content=prompt)]
            jobs.append(functools.partial(_ask, client, msgs, ep, item))
    items = await _fan_out(jobs, ctx.qa.max_concurrency)
    source = f"model {client.model}" if client is not None else "extractive reader"
    return _result("document_qa", ctx, query, source, items, notes, t0)


def document_qa(ctx: ToolContext, args: DocumentQAArgs) -> ToolResult:
    """Synchronous entry for the registry; the work runs on the shared background loop."""
    return run_sync(document_qa_async(ctx, args))


# ---------------------------------------------------------------- video_qa


def _data_uri(jpeg: bytes) -> str:
    return "data:image/jpeg;base64," + base64.b64encode(jpeg).decode("ascii")


async def _ask_frames(ctx: ToolContext, client: ChatClient, query: str, item: QAItem) -> QAItem:
    from playscout.media import MediaError, sample_frames_timed

    assert ctx.corpus is not None
    try:
        path = ctx.corpus.clip_path(ctx.sport, item.id)
    except (CorpusError, ValueError) as e:
        item.error = f"no video file for clip {item.id}: {e}"
        return item
    if path is None:
        item.error = f"no video file listed for clip {item.id}"
        return item
    qa = ctx.qa
    try:
        frames = await asyncio.to_thread(
            sample_frames_timed, path, qa.frames_per_clip, qa.frame_long_side, qa.jpeg_quality
        )
    except MediaError as e:
        item.error = f"cannot read the video of clip {item.id}: {e}"
        return item
    parts: list[TextPart | ImagePart] = [TextPart(text=render("video_qa", query=query))]
    parts += [ImagePart(url=_data_uri(f.jpeg)) for f in frames]
    item.frames = SentFrames(
        times=[f.time for f in frames], long_side=qa.frame_long_side, quality=qa.jpeg_quality
    )
    if len(frames) < qa.frames_per_clip:
        item.notes.append(f"only {len(frames)} frames could be read")
    return await _ask(client, [ChatMessage(role="user", content=parts)], ctx.qa.vlm, item)


async def _video_default(
    ctx: ToolContext, ids: list[str], query: str, notes: list[str], t0: float
) -> ToolResult:
    client = ctx.models.vlm
    if client is None:
        return ToolResult.failure("video_qa", NO_VLM)
    if ctx.corpus is None:
        return ToolResult.failure("video_qa", NO_CORPUS)
    records = _clips(ctx, ids, include_caption=False)
    jobs: list[Callable[[], Awaitable[QAItem]]] = []
    for clip_id, record in zip(ids, records, strict=True):
        item = QAItem(id=clip_id)
        if record is None:
            item.error = f"clip {clip_id} not found; use clip ids from search_videos"
            jobs.append(_ready(item))
        else:
            jobs.append(functools.partial(_ask_frames, ctx, client, query, item))
    items = await _fan_out(jobs, ctx.qa.max_concurrency)
    n = ctx.qa.frames_per_clip
    return _result(
        "video_qa", ctx, query, f"model {client.model} ({n} frames per clip)", items, notes, t0
    )


async def _video_oracle(
    ctx: ToolContext,
    ids: list[str],
    query: str,
    notes: list[str],
    t0: float,
    tool: str = "video_qa",
) -> ToolResult:
    client = ctx.models.caption_llm or ctx.models.document_llm
    ep = ctx.qa.caption_llm if ctx.models.caption_llm is not None else ctx.qa.document_llm
    notes.append("oracle mode: answers come from ground-truth captions, not frames")
    if client is None:
        notes.append(NO_CAPTION_LLM)
    counter = token_counter(getattr(ctx.qa, "tokenizer_path", None))
    records = _clips(ctx, ids, include_caption=True)
    jobs: list[Callable[[], Awaitable[QAItem]]] = []
    for clip_id, record in zip(ids, records, strict=True):
        item = QAItem(id=clip_id)
        if record is None:
            item.error = f"clip {clip_id} not found; use clip ids from search_videos"
            jobs.append(_ready(item))
            continue
        captions = record.caption.strip()
        if not captions:
            item.notes.append("no captions for this clip")
        cut = counter.truncate(captions or NO_CAPTIONS, ctx.qa.max_document_tokens)
        if cut.cut:
            item.notes.append(
                f"captions cut to their first {cut.tokens} of {cut.total_tokens} tokens"
            )
        if client is None:
            if captions:
                jobs.append(functools.partial(_extract, cut.text, query, item))
            else:
                jobs.append(_ready(_fill(item, ParsedAnswer(answer=NO_EVIDENCE))))
        else:
            prompt = render("video_qa_oracle", captions=cut.text, query=query)
            msgs = [ChatMessage(role="user", content=prompt)]
            jobs.append(functools.partial(_ask, client, msgs, ep, item))
    items = await _fan_out(jobs, ctx.qa.max_concurrency)
    source = f"model {client.model}" if client is not None else "extractive reader"
    return _result(tool, ctx, query, source, items, notes, t0)


def _clips(ctx: ToolContext, ids: list[str], include_caption: bool) -> list[Any]:
    try:
        records = list(ctx.backend.get_clips(ctx.sport, ids, include_caption=include_caption))
    except SearchError as e:
        raise ToolError(str(e)) from None
    _require_one_known(ids, records, "clip", "search_videos")
    return records


async def video_qa_async(ctx: ToolContext, args: VideoQAArgs) -> ToolResult:
    t0 = time.perf_counter()
    ids, notes = _check_ids(args.video_ids, ctx.qa.max_ids, "clip", args.query)
    query = args.query.strip()
    if ctx.mode == "oracle":
        return await _video_oracle(ctx, ids, query, notes, t0)
    return await _video_default(ctx, ids, query, notes, t0)


def video_qa(ctx: ToolContext, args: VideoQAArgs) -> ToolResult:
    """Synchronous entry for the registry; the work runs on the shared background loop."""
    return run_sync(video_qa_async(ctx, args))


async def video_qa_oracle_async(ctx: ToolContext, args: VideoQAArgs) -> ToolResult:
    """The reference's oracle-run tool name: captions only, and only in oracle mode (it must
    never stand in for frames)."""
    if ctx.mode != "oracle":
        raise ToolError("video_qa_oracle reads ground-truth captions: oracle mode only")
    t0 = time.perf_counter()
    ids, notes = _check_ids(args.video_ids, ctx.qa.max_ids, "clip", args.query)
    return await _video_oracle(ctx, ids, args.query.strip(), notes, t0, "video_qa_oracle")


def video_qa_oracle(ctx: ToolContext, args: VideoQAArgs) -> ToolResult:
    return run_sync(video_qa_oracle_async(ctx, args))


# ---------------------------------------------------------------- video files (eval only)


@dataclass(frozen=True)
class VideoFile:
    """A video file a published benchmark item is about. `window`: the seconds the question is
    about (frames come from that span only); `box`: a normalised x1, y1, x2, y2 drawn in red
    on the first frame (T8's evaluator marks the target player that way)."""

    path: Path
    window: tuple[float, float] | None = None
    box: tuple[float, float, float, float] | None = None


def _file_frames(video: VideoFile, qa: QASettings) -> list[bytes]:
    from playscout.media import draw_box, sample_frames

    frames = sample_frames(
        video.path, qa.frames_per_clip, qa.frame_long_side, qa.jpeg_quality, video.window
    )
    if video.box is not None and frames:
        frames[0] = draw_box(frames[0], video.box, quality=qa.jpeg_quality)
    return frames


async def video_files_qa(
    client: ChatClient, qa: QASettings, videos: Sequence[VideoFile], prompt: str
) -> ToolResult:
    """One question about one or more video files, all in one request (GameplayQA asks about
    up to five videos at once: every video goes, each after a "Video i:" label). The prompt is
    the benchmark's own and its reply is taken as written. Never offered to the agent: the
    paths come from a data file the operator passed (`eval run --data`), not from a model."""
    from playscout.media import MediaError

    t0 = time.perf_counter()
    item = QAItem(id=",".join(v.path.name for v in videos))
    parts: list[TextPart | ImagePart] = [TextPart(text=prompt)]
    for i, video in enumerate(videos, 1):
        try:
            frames = await asyncio.to_thread(_file_frames, video, qa)
        except MediaError as e:
            return ToolResult.failure("video_file_qa", f"cannot read {video.path.name}: {e}")
        if len(videos) > 1:
            parts.append(TextPart(text=f"Video {i}:"))
        parts += [ImagePart(url=_data_uri(f)) for f in frames]
        if len(frames) < qa.frames_per_clip:
            item.notes.append(f"only {len(frames)} frames could be read from {video.path.name}")
    await _ask(client, [ChatMessage(role="user", content=parts)], qa.vlm, item, parse=False)
    result = QAResult(
        tool="video_file_qa",
        query=prompt,
        mode="default",
        source=f"model {client.model} ({qa.frames_per_clip} frames per video)",
        items=[item],
        latency_s=round(time.perf_counter() - t0, 4),
        usage=item.usage or Usage(),
    )
    return ToolResult(
        tool="video_file_qa", observation=render_qa(result), data=result, error=item.error
    )
