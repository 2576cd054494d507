"""video_qa (paper Figs. 45-46): one question asked of each listed clip, with
`qa.frames_per_clip` frames sent to the VLM. Without a VLM, default-mode video_qa refuses
(nothing offline can honestly look at pixels); in oracle mode it reads captions (qa/oracle.py).
"""

from __future__ import annotations

import asyncio
import functools
import time

from playscout.clients.chat import ChatClient, ChatMessage, ImagePart, TextPart
from playscout.clients.sync import run_sync
from playscout.corpus.errors import CorpusError
from playscout.tools.declare import tool
from playscout.tools.prompts import qa_prompt
from playscout.tools.qa.args import VideoQAArgs
from playscout.tools.qa.fanout import (
    MISSING_CLIP,
    ask,
    check_ids,
    clip_records,
    data_uri,
    fan_out,
    per_record,
    result,
)
from playscout.tools.qa.oracle import ORACLE_ROLES, video_oracle
from playscout.tools.qa.results import QAItem, SentFrames
from playscout.tools.roles import VLM
from playscout.tools.tool import ToolContext, ToolResult

NO_VLM = "no VLM configured for video_qa; configure qa.vlm or use oracle mode"
NO_CORPUS = "no corpus configured: video_qa needs the clip files (set corpus_dir)"


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
    parts: list[TextPart | ImagePart] = [
        TextPart(text=qa_prompt("video_qa", ctx.style, query=query))
    ]
    parts += [ImagePart(url=data_uri(f.jpeg)) for f in frames]
    item.frames = SentFrames(
        times=[f.time for f in frames], long_side=qa.frame_long_side, quality=qa.jpeg_quality
    )
    if len(frames) < qa.frames_per_clip:
        item.notes.append(f"only {len(frames)} frames could be read")
    return await ask(client, [ChatMessage(role="user", content=parts)], ctx.qa.vlm, item)


async def _video_default(
    ctx: ToolContext, ids: list[str], query: str, notes: list[str], t0: float
) -> ToolResult:
    client = ctx.models.vlm
    if client is None:
        return ToolResult.failure("video_qa", NO_VLM)
    if ctx.corpus is None:
        return ToolResult.failure("video_qa", NO_CORPUS)
    records = clip_records(ctx, ids, include_caption=False)
    jobs = per_record(
        ids,
        records,
        MISSING_CLIP,
        lambda item, _: functools.partial(_ask_frames, ctx, client, query, item),
    )
    items = await fan_out(jobs, ctx.qa.max_concurrency)
    n = ctx.qa.frames_per_clip
    return result(
        "video_qa", ctx, query, f"model {client.model} ({n} frames per clip)", items, notes, t0
    )


async def video_qa_async(ctx: ToolContext, args: VideoQAArgs) -> ToolResult:
    t0 = time.perf_counter()
    ids, notes = check_ids(args.video_ids, ctx.qa.max_ids, "clip", args.query)
    query = args.query.strip()
    if ctx.mode == "oracle":
        return await video_oracle(ctx, ids, query, notes, t0)
    return await _video_default(ctx, ids, query, notes, t0)


@tool(
    "video_qa",
    "Ask one question of each listed video clip ({{qa.frames_per_clip}} frames per clip, read "
    "by a vision model). Returns per clip an answer, a confidence and the visual evidence.",
    group="qa",
    roles=(VLM,),
    oracle_roles=ORACLE_ROLES,
)
def video_qa(ctx: ToolContext, args: VideoQAArgs) -> ToolResult:
    """Synchronous entry for the registry; the work runs on the shared background loop."""
    return run_sync(video_qa_async(ctx, args))
