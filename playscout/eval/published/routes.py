"""How a published item is asked when its answer is in video files (T1/T2/T5/T8 clips,
GameplayQA, STARBench, LCric, and T4/T6 games missing from the corpus): one recorded question
to the VLM with every video of the item, the benchmark's own prompt, the reply as written."""

from __future__ import annotations

import re
import time
from pathlib import Path

from playscout.agent.tooling import recorded_step
from playscout.agent.trajectory import TrajectoryWriter
from playscout.eval.errors import RunError
from playscout.eval.records import Outcome
from playscout.eval.tasks.task import Instance, TaskEnv, record_direct
from playscout.eval.video_files import TOOL, VideoFile, video_files_qa
from playscout.tools.tool import ToolResult


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


def video_files(inst: Instance) -> list[VideoFile]:
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
    videos = video_files(inst)
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


def first_letter(answer: str | None, n_options: int) -> int | None:
    """The option picked: the first standalone letter of the upper-cased reply (the rule of
    the T5 reference's evaluate_results), if it names one of the n options."""
    if not 1 <= n_options <= 10:
        return None
    m = re.search(rf"\b([A-{chr(ord('A') + n_options - 1)}])\b", (answer or "").upper())
    return ord(m.group(1)) - ord("A") if m else None
