"""detect_audio_events: what can be heard besides speech (crowd, whistle, horn, music, impacts),
described by Audio Flamingo 3 as STARAgent's audio refiner does.

No AF3 weights ship on PyPI, so the model is a configured local directory (transformers format,
e.g. a downloaded nvidia/audio-flamingo-3-hf); without one the tool says how to configure it
instead of guessing from loudness."""

from __future__ import annotations

from pydantic import BaseModel, Field

from playscout.media.audio import SAMPLE_RATE, AudioError, load_audio
from playscout.perception.audio_events import audio_model
from playscout.tools.declare import tool
from playscout.tools.perception.clips import ClipArgs, ClipFile, per_clip, resolve_clips
from playscout.tools.tool import ToolContext, ToolResult

DEFAULT_PROMPT = (
    "Describe the non-speech sounds in this audio (crowd noise, cheering, whistles, horns, "
    "buzzers, music, applause, ball or body impacts) and when they happen."
)


class DetectAudioEventsArgs(ClipArgs):
    query: str | None = Field(
        None,
        max_length=500,
        description="What to listen for (e.g. 'is there a whistle, and when?'); omit for a "
        "general description of the sounds.",
    )


class ClipAudio(BaseModel):
    clip_id: str
    audio_seconds: float | None = None
    description: str | None = None
    error: str | None = None


class AudioEventsResult(BaseModel):
    model: str
    prompt: str
    clips: list[ClipAudio]


@tool(
    "detect_audio_events",
    "Describe the non-speech sounds of video clips (crowd, whistle, buzzer, horn, music, "
    "impacts) with an audio-language model; optionally ask a specific question about them.",
    group="perception",
    reads_media=True,
)
def detect_audio_events(ctx: ToolContext, args: DetectAudioEventsArgs) -> ToolResult:
    settings = ctx.perception
    clips = resolve_clips(ctx, args.video_ids, settings.max_clips)
    model = audio_model(settings)
    prompt = args.query.strip() if args.query and args.query.strip() else DEFAULT_PROMPT

    def listen(clip: ClipFile) -> ClipAudio:
        audio = load_audio(clip.path, SAMPLE_RATE, settings.max_audio_seconds)
        seconds = round(audio.size / SAMPLE_RATE, 2)
        if audio.size == 0:
            return ClipAudio(clip_id=clip.clip_id, audio_seconds=0.0, description="")
        text = model.describe(audio, prompt, settings.audio_max_new_tokens)
        return ClipAudio(clip_id=clip.clip_id, audio_seconds=seconds, description=text)

    outcomes = per_clip(clips, listen, (AudioError,))
    result = AudioEventsResult(
        model=model.name,
        prompt=prompt,
        clips=[
            c if c is not None else ClipAudio(clip_id=f.clip_id, error=e) for f, c, e in outcomes
        ],
    )
    return ToolResult(tool="detect_audio_events", observation=render(result), data=result)


def render(result: AudioEventsResult) -> str:
    lines = [f"audio events in {len(result.clips)} clip(s), model {result.model}"]
    for clip in result.clips:
        if clip.error:
            lines.append(f"clip {clip.clip_id}: error: {clip.error}")
        elif not clip.audio_seconds:
            lines.append(f"clip {clip.clip_id}: empty audio track")
        else:
            lines.append(
                f"clip {clip.clip_id} ({clip.audio_seconds:g} s): {clip.description or '(no description)'}"
            )
    return "\n".join(lines)
