"""One question about one or more video files a benchmark item names (published T1/T2/T5/T8
clips, GameplayQA, STARBench, LCric): eval's own use of the VLM, never an agent tool. The
paths come from a data file the operator passed (`eval run --data`), not from a model, so
this lives in eval and only borrows the QA tools' shared steps (tools/qa/fanout.py)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from playscout.clients.chat import (
    ChatClient,
    ChatMessage,
    ImagePart,
    Part,
    TextPart,
    Usage,
    VideoPart,
)
from playscout.config import QASettings
from playscout.tools.qa.fanout import ask, data_uri
from playscout.tools.qa.results import QAItem, QAResult, render_qa
from playscout.tools.tool import ToolResult

TOOL = "video_file_qa"


@dataclass(frozen=True)
class VideoFile:
    """A video file a published benchmark item is about. `window`: the seconds the question is
    about (frames come from that span only); `box`: a normalised x1, y1, x2, y2 drawn in red
    on the first frame (T8's evaluator marks the target player that way)."""

    path: Path
    window: tuple[float, float] | None = None
    box: tuple[float, float, float, float] | None = None


def _video_uri(frames: list[bytes]) -> str:
    import base64

    from playscout.media.encode import frames_to_mp4

    return "data:video/mp4;base64," + base64.b64encode(frames_to_mp4(frames)).decode()


def _file_frames(video: VideoFile, qa: QASettings) -> list[bytes]:
    from playscout.media import draw_box, sample_frames

    frames = sample_frames(
        video.path, qa.frames_per_clip, qa.frame_long_side, qa.jpeg_quality, video.window
    )
    if video.box is not None and frames:
        frames[0] = draw_box(frames[0], video.box, quality=qa.jpeg_quality)
    return frames


async def video_files_qa(
    client: ChatClient,
    qa: QASettings,
    videos: Sequence[VideoFile],
    prompt: str,
    *,
    as_video: bool = False,
) -> ToolResult:
    """One question about one or more video files, all in one request (GameplayQA asks about
    up to five videos at once: every video goes, each after a "Video i:" label). The prompt is
    the benchmark's own and its reply is taken as written. `as_video`: each video's frames go
    as one native video input before the question (T4's full games, as the reference passes
    them to Qwen3-VL-32B and Molmo2), not as image parts after it; the generation settings
    are `qa.vlm`'s."""
    from playscout.media import MediaError

    t0 = time.perf_counter()
    item = QAItem(id=",".join(v.path.name for v in videos))
    parts: list[Part] = [] if as_video else [TextPart(text=prompt)]
    for i, video in enumerate(videos, 1):
        try:
            frames = await asyncio.to_thread(_file_frames, video, qa)
        except MediaError as e:
            return ToolResult.failure(TOOL, f"cannot read {video.path.name}: {e}")
        if len(videos) > 1:
            parts.append(TextPart(text=f"Video {i}:"))
        if as_video:
            parts.append(VideoPart(url=await asyncio.to_thread(_video_uri, frames)))
        else:
            parts += [ImagePart(url=data_uri(f)) for f in frames]
        if len(frames) < qa.frames_per_clip:
            item.notes.append(f"only {len(frames)} frames could be read from {video.path.name}")
    if as_video:
        parts.append(TextPart(text=prompt))
    await ask(client, [ChatMessage(role="user", content=parts)], qa.vlm, item, parse=False)
    shape = "frames as one video" if as_video else "frames per video"
    result = QAResult(
        tool=TOOL,
        query=prompt,
        mode="default",
        source=f"model {client.model} ({qa.frames_per_clip} {shape})",
        items=[item],
        latency_s=round(time.perf_counter() - t0, 4),
        usage=item.usage or Usage(),
    )
    return ToolResult(tool=TOOL, observation=render_qa(result), data=result, error=item.error)
