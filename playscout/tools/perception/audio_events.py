"""detect_audio_events: what can be heard besides speech (crowd, whistle, horn, music, impacts),
described by Audio Flamingo 3 as STARAgent's audio refiner does.

No AF3 weights ship on PyPI, so the model is a configured local directory (transformers format,
e.g. a downloaded nvidia/audio-flamingo-3-hf); without one the tool says how to configure it
instead of guessing from loudness."""

from __future__ import annotations

import functools
import threading
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from playscout.config import PerceptionSettings
from playscout.indexer.media.audio import SAMPLE_RATE, AudioError, load_audio
from playscout.tools.base import ToolContext, ToolError, ToolResult
from playscout.tools.perception.clips import ClipArgs, ClipFile, per_clip, resolve_clips

DEFAULT_PROMPT = (
    "Describe the non-speech sounds in this audio (crowd noise, cheering, whistles, horns, "
    "buzzers, music, applause, ball or body impacts) and when they happen."
)
NOT_CONFIGURED = (
    "no audio-event model configured: set PLAYSCOUT_PERCEPTION_AUDIO_MODEL_DIR to a local "
    "Audio Flamingo 3 directory (transformers format)"
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


class AudioModel:
    """Processor + AF3 model on one device; generate() is serialised (one model, big memory)."""

    def __init__(self, model_dir: Path, device: str) -> None:
        try:
            import torch
            from transformers import AudioFlamingo3ForConditionalGeneration, AutoProcessor
        except ImportError:
            raise ToolError(
                "Audio Flamingo 3 needs torch and transformers>=5 (pip install transformers)"
            ) from None
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        dtype = torch.bfloat16 if device == "cuda" else torch.float32
        try:
            self.processor: Any = AutoProcessor.from_pretrained(
                str(model_dir), local_files_only=True
            )
            model_cls: Any = AudioFlamingo3ForConditionalGeneration
            self.model: Any = model_cls.from_pretrained(
                str(model_dir), local_files_only=True, dtype=dtype
            )
        except (OSError, ValueError, KeyError) as e:
            reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise ToolError(f"cannot load Audio Flamingo 3 from {model_dir}: {reason}") from None
        self.model.to(device).eval()
        self.device = device
        self.name = model_dir.name
        self._lock = threading.Lock()

    def describe(self, audio: Any, prompt: str, max_new_tokens: int) -> str:
        return self.describe_batch([audio], prompt, max_new_tokens)[0]

    def describe_batch(self, audios: list[Any], prompt: str, max_new_tokens: int) -> list[str]:
        """One generate() for several clips: the processor left-pads the prompts, so each row's
        new tokens start at the same column."""
        import torch

        conversation = [
            {"role": "user", "content": [{"type": "text", "text": prompt}, {"type": "audio"}]}
        ]
        text = self.processor.apply_chat_template(
            conversation, tokenize=False, add_generation_prompt=True
        )
        inputs = self.processor(text=[text] * len(audios), audio=list(audios), return_tensors="pt")
        inputs = inputs.to(self.device)
        if "input_features" in inputs:
            inputs["input_features"] = inputs["input_features"].to(self.model.dtype)
        with self._lock, torch.inference_mode():
            out = self.model.generate(**inputs, max_new_tokens=max_new_tokens, do_sample=False)
        new = out[:, inputs["input_ids"].shape[1] :]
        return [str(t).strip() for t in self.processor.batch_decode(new, skip_special_tokens=True)]


_load_lock = threading.Lock()


@functools.cache
def _load(model_dir: str, device: str) -> AudioModel:
    return AudioModel(Path(model_dir), device)


def audio_model(settings: PerceptionSettings) -> AudioModel:
    model_dir = settings.audio_model_dir
    if model_dir is None:
        raise ToolError(NOT_CONFIGURED)
    if not (model_dir / "config.json").is_file():
        raise ToolError(
            f"{model_dir} is not a transformers model directory (no config.json); "
            "set PLAYSCOUT_PERCEPTION_AUDIO_MODEL_DIR to a local Audio Flamingo 3 directory"
        )
    with _load_lock:
        return _load(str(model_dir.resolve()), settings.audio_device)


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
