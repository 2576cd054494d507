"""Oracle-mode video QA: the clip's ground-truth event captions stand in for its frames, read
by the caption model (else the document model, else an extractive reader that says so).
video_qa runs this in oracle mode; video_qa_oracle is the reference's name for it."""

from __future__ import annotations

import functools
import time
from typing import Any

from playscout.clients.answers import ParsedAnswer
from playscout.clients.chat import ChatMessage
from playscout.clients.sync import run_sync
from playscout.tools.declare import tool
from playscout.tools.prompts import qa_prompt
from playscout.tools.qa.args import VideoQAArgs
from playscout.tools.qa.fanout import (
    MISSING_CLIP,
    Job,
    ask,
    check_ids,
    clip_records,
    extract,
    fan_out,
    fill,
    per_record,
    ready,
    result,
)
from playscout.tools.qa.results import QAItem
from playscout.tools.readers import NO_EVIDENCE
from playscout.tools.roles import CAPTION_LLM, DOCUMENT_LLM
from playscout.tools.tokens import token_counter
from playscout.tools.tool import ToolContext, ToolError, ToolResult

NO_CAPTION_LLM = (
    "no caption LLM configured: extractive reader over the clip's ground-truth captions; "
    "answer is the best-matching caption sentence"
)
NO_CAPTIONS = "No text data found for this clip."
ORACLE_ROLES = (CAPTION_LLM, DOCUMENT_LLM)  # the caption model, else the document model


async def video_oracle(
    ctx: ToolContext,
    ids: list[str],
    query: str,
    notes: list[str],
    t0: float,
    tool: str = "video_qa",
) -> ToolResult:
    client = ctx.models.caption_llm or ctx.models.document_llm
    ep = ctx.qa.caption_llm if ctx.models.caption_llm is not None else ctx.qa.document_llm
    if ctx.style != "reference":  # the reference tells the agent nothing of the captions
        notes.append("oracle mode: answers come from ground-truth captions, not frames")
    if client is None:
        notes.append(NO_CAPTION_LLM)
    counter = token_counter(getattr(ctx.qa, "tokenizer_path", None))
    records = clip_records(ctx, ids, include_caption=True)

    def job(item: QAItem, record: Any) -> Job:
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
                return functools.partial(extract, cut.text, query, item)
            return ready(fill(item, ParsedAnswer(answer=NO_EVIDENCE)))
        prompt = qa_prompt("video_qa_oracle", ctx.style, captions=cut.text, query=query)
        msgs = [ChatMessage(role="user", content=prompt)]
        return functools.partial(ask, client, msgs, ep, item)

    jobs = per_record(ids, records, MISSING_CLIP, job)
    items = await fan_out(jobs, ctx.qa.max_concurrency)
    source = f"model {client.model}" if client is not None else "extractive reader"
    return result(tool, ctx, query, source, items, notes, t0)


async def video_qa_oracle_async(ctx: ToolContext, args: VideoQAArgs) -> ToolResult:
    """The reference's oracle-run tool name: captions only, and only in oracle mode (it must
    never stand in for frames)."""
    if ctx.mode != "oracle":
        raise ToolError("video_qa_oracle reads ground-truth captions: oracle mode only")
    t0 = time.perf_counter()
    ids, notes = check_ids(args.video_ids, ctx.qa.max_ids, "clip", args.query)
    return await video_oracle(ctx, ids, args.query.strip(), notes, t0, "video_qa_oracle")


@tool(
    "video_qa_oracle",
    "Ask one question of each listed video clip, answered from the clip's ground-truth event "
    "captions (oracle mode only; the reference's name for video_qa in oracle runs).",
    group="qa",
    roles=ORACLE_ROLES,
    oracle_only=True,
)
def video_qa_oracle(ctx: ToolContext, args: VideoQAArgs) -> ToolResult:
    return run_sync(video_qa_oracle_async(ctx, args))
