"""extract_scene_text: what is written on screen (scoreboards, clocks, captions, names) at
chosen moments of clips. Scoreboard text is the most exact evidence a video can give for score
and game clock (ASAP aligns clips to play-by-play with it), so lines keep their frame times."""

from __future__ import annotations

import re
import time
from typing import Any

from pydantic import AliasChoices, BaseModel, Field, field_validator

from playscout.config import OcrEngine
from playscout.media.errors import VideoError
from playscout.media.timed_frames import frames_at
from playscout.perception.ocr import Engine, choose_engine, read_lines
from playscout.tools.declare import tool
from playscout.tools.perception.clips import ClipArgs, ClipFile, per_clip, resolve_clips
from playscout.tools.tool import ToolContext, ToolError, ToolResult


def _times_list(value: Any) -> Any:
    if isinstance(value, (int, float, str)) and not isinstance(value, bool):
        return [value]
    return value


class ExtractSceneTextArgs(ClipArgs):
    times: list[float] | None = Field(
        None,
        validation_alias=AliasChoices("times", "timestamps", "timestamp"),
        description="Seconds into each clip to read (e.g. [2.0, 7.5]); omit for evenly spaced "
        "frames.",
    )
    engine: OcrEngine | None = Field(
        None, description="auto (PP-OCR if installed, else tesseract), tesseract or ppocr."
    )

    _times = field_validator("times", mode="before")(_times_list)

    @field_validator("times")
    @classmethod
    def _non_negative(cls, v: list[float] | None) -> list[float] | None:
        if v is not None and any(t < 0 for t in v):
            raise ValueError("times are seconds into the clip, 0 or more")
        return v


class TextLine(BaseModel):
    text: str
    confidence: float
    times: list[float]  # frame times (s into the clip) where the line was read


class ClipText(BaseModel):
    clip_id: str
    duration: float | None = None
    frame_times: list[float] = []
    lines: list[TextLine] = []
    error: str | None = None


class SceneTextResult(BaseModel):
    engine: Engine
    clips: list[ClipText]
    notes: list[str]
    ms_per_frame: float


def _key(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


@tool(
    "extract_scene_text",
    "Read on-screen text (scoreboard score and game clock, player names, captions) in video "
    "clips by OCR. Give clip ids and optionally seconds into the clip; returns each text "
    "line once with the frame times it was seen and a confidence.",
    group="perception",
    reads_media=True,
)
def extract_scene_text(ctx: ToolContext, args: ExtractSceneTextArgs) -> ToolResult:
    settings = ctx.perception
    clips = resolve_clips(ctx, args.video_ids, settings.max_clips)
    if args.times and len(args.times) > settings.ocr_max_times:
        raise ToolError(f"{len(args.times)} times given; at most {settings.ocr_max_times}")
    engine = choose_engine(args.engine or settings.ocr_engine)
    notes: list[str] = []
    if (args.engine or settings.ocr_engine) == "auto" and engine == "tesseract":
        notes.append("PP-OCR is not installed; read with tesseract")
    frames_read = 0
    t0 = time.perf_counter()

    def read(clip: ClipFile) -> ClipText:
        nonlocal frames_read
        frames, duration = frames_at(
            clip.path, args.times, settings.ocr_frames, settings.ocr_long_side
        )
        merged: dict[str, TextLine] = {}
        for frame in frames:
            frames_read += 1
            for line in read_lines(engine, frame.image):
                if line.confidence < settings.ocr_min_confidence:
                    continue
                seen = merged.get(_key(line.text))
                if seen is None:
                    merged[_key(line.text)] = TextLine(
                        text=line.text, confidence=round(line.confidence, 3), times=[frame.time]
                    )
                else:
                    seen.times.append(frame.time)
                    seen.confidence = round(max(seen.confidence, line.confidence), 3)
        if args.times and max(args.times) > duration > 0:
            notes.append(f"clip {clip.clip_id} is {duration:.1f} s long; later times read its end")
        return ClipText(
            clip_id=clip.clip_id,
            duration=round(duration, 3),
            frame_times=[f.time for f in frames],
            lines=list(merged.values()),
        )

    outcomes = per_clip(clips, read, (VideoError,))
    elapsed = time.perf_counter() - t0
    result = SceneTextResult(
        engine=engine,
        clips=[
            c if c is not None else ClipText(clip_id=f.clip_id, error=e) for f, c, e in outcomes
        ],
        notes=notes,
        ms_per_frame=round(1000 * elapsed / max(1, frames_read), 1),
    )
    return ToolResult(
        tool="extract_scene_text", observation=render(result), data=result, notes=notes
    )


def _times_text(times: list[float]) -> str:
    return ", ".join(f"{t:g}" for t in times) + " s"


def render(result: SceneTextResult) -> str:
    lines = [f"scene text of {len(result.clips)} clip(s), OCR engine {result.engine}"]
    lines += [f"note: {n}" for n in result.notes]
    for clip in result.clips:
        if clip.error:
            lines.append(f"clip {clip.clip_id}: error: {clip.error}")
            continue
        head = (
            f"clip {clip.clip_id} ({clip.duration:g} s; frames at {_times_text(clip.frame_times)})"
        )
        if not clip.lines:
            lines.append(f"{head}: no text found")
            continue
        lines.append(f"{head}:")
        for ln in clip.lines:
            where = (
                "all frames"
                if len(ln.times) == len(clip.frame_times) > 1
                else _times_text(ln.times)
            )
            lines.append(f'  "{ln.text}" | conf {ln.confidence:.2f} | {where}')
    return "\n".join(lines)
