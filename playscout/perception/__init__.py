"""Perception engines shared by the agent's tools and the video indexer: OCR (PP-OCR and
tesseract, `perception.ocr`), Whisper speech recognition (`perception.asr`) and Audio Flamingo
audio events (`perception.audio_events`). Each imports its engine lazily and loads it once per
process; a missing or unconfigured engine raises `EngineUnavailable` saying what to do."""

from playscout.perception.asr import whisper_model
from playscout.perception.audio_events import AudioModel, audio_model
from playscout.perception.errors import EngineUnavailable

__all__ = ["AudioModel", "EngineUnavailable", "audio_model", "whisper_model"]
