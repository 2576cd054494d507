"""How a published item is asked when its answer is in video files (T1/T2/T5/T8 clips,
GameplayQA, STARBench, LCric, and T4/T6 games missing from the corpus): one recorded question
to the VLM with every video of the item, the benchmark's own prompt, the reply as written.

That question is eval's own use of the VLM, never an agent tool: the paths come from a data
file the operator passed (`eval run --data`), not from a model, so it lives here and only
borrows the QA tools' shared steps (tools/qa/fanout.py). `FileTask` and `FileMCQ` are the
published routes built on it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playscout.agent.tooling import recorded_step
from playscout.agent.trajectory import TrajectoryWriter
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
from playscout.eval.errors import RunError
from playscout.eval.judging.metrics import accuracy, grouped_accuracy
from playscout.eval.storage.records import Outcome, ResultRow
from playscout.eval.tasks.options import first_letter, pick_option
from playscout.eval.tasks.routes import record_direct
from playscout.eval.tasks.task import Instance, Needs, Task, TaskEnv
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


def require_vlm(env: TaskEnv, task: str, why: str) -> None:
    """Before anything is written: a route that sends frames needs a VLM, and oracle mode
    (captions instead of frames) needs captions, which video files do not come with."""
    if env.mode == "oracle":
        raise RunError(
            f"{task} on published data {why}: oracle mode answers from ground-truth captions, "
            "which these files do not carry; run --mode default"
        )
    if env.models.vlm is None:
        raise RunError(
            f"{task} on published data {why}, which needs a VLM: pass --vlm-url and --vlm-model "
            "(or set qa.vlm)"
        )


def item_videos(inst: Instance) -> list[VideoFile]:
    windows = inst.meta.get("windows") or [None] * len(inst.meta["videos"])
    box = inst.meta.get("box")
    return [
        VideoFile(Path(p), tuple(w) if w else None, tuple(box) if box and i == 0 else None)
        for i, (p, w) in enumerate(zip(inst.meta["videos"], windows, strict=True))
    ]


async def ask_video_files(
    env: TaskEnv, inst: Instance, prompt: str, trajectory: Path, frames: int | None = None
) -> Outcome:
    """The item's videos and `prompt` to the VLM, recorded as a one-step trajectory; `frames`
    per video when given (T4's full games: then also the game answerer's settings,
    eval.game_temperature, game_max_tokens and game_video_input), else qa.frames_per_clip."""
    client = env.models.vlm
    if client is None:  # require_vlm ran before the run started
        raise RunError("no VLM configured")
    videos = item_videos(inst)
    args = {"videos": [str(v.path) for v in videos], "query": prompt}
    qa, ev = env.settings.qa, env.settings.eval
    as_video = False
    if frames is not None:
        vlm = qa.vlm.model_copy(
            update={
                k: v
                for k, v in (
                    ("temperature", ev.game_temperature),
                    ("max_tokens", ev.game_max_tokens),
                )
                if v is not None
            }
        )
        qa = qa.model_copy(update={"frames_per_clip": frames, "vlm": vlm})
        as_video = ev.game_video_input

    async def run() -> tuple[ToolResult, float]:
        t0 = time.perf_counter()
        result = await video_files_qa(client, qa, videos, prompt, as_video=as_video)
        return result, time.perf_counter() - t0

    async def call(writer: TrajectoryWriter) -> ToolResult:
        return (await recorded_step(writer, 1, TOOL, args, run)).result

    result, rec = await record_direct(trajectory, prompt, inst.sport, env.mode, TOOL, call)
    items = getattr(result.data, "items", None) or []
    item = items[0] if items else None
    answer = item.answer if item is not None and not result.error else None
    usage = item.usage if item is not None else None
    return rec.updated(
        answer=answer or None,
        raw_answer=answer,
        status="error" if result.error else "answered" if answer else "no_answer",
        prompt_tokens=usage.prompt_tokens if usage else 0,
        completion_tokens=usage.completion_tokens if usage else 0,
        route="video files",
    )


class FileTask(Task):
    """A published item asked about its video files: it needs them and a VLM."""

    needs = Needs(videos="required", vlm=True)

    def check(self, env: TaskEnv) -> None:
        require_vlm(env, self.name, "asks a VLM about each item's videos")


FILE_QA = Needs(videos="required", vlm=True, judge="the option letter the reply names")


class FileMCQ(Task):
    """A multiple-choice question about the item's video files (published T2, T5, T8)."""

    needs = FILE_QA
    pick_rule = "letter"  # "letter": first standalone letter; "option": letter or option text

    def check(self, env: TaskEnv) -> None:
        require_vlm(env, self.name, "asks a VLM about each item's video")

    def prompt(self, inst: Instance) -> str:
        return inst.prompt

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        rec = await ask_video_files(env, inst, self.prompt(inst), trajectory)
        options = inst.meta["options"]
        if self.pick_rule == "option":
            choice = pick_option(rec.answer, options)
        else:
            choice = first_letter(rec.answer, len(options))
        return rec.updated(choice=choice, correct=choice == inst.gold)

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        return {
            "accuracy": accuracy([bool(r.correct) for r in records]),
            "per_question_type": grouped_accuracy(
                [(r.meta.get("question_type", "unknown"), bool(r.correct)) for r in records]
            ),
            "no_choice": sum(r.choice is None for r in records),
        }
