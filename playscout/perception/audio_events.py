"""Audio Flamingo 3: describes what can be heard besides speech, as STARAgent's audio refiner
does. Loaded once per process and shared by the detect_audio_events tool and the indexer.

No AF3 weights ship on PyPI, so the model is a configured local directory (transformers format);
without one, the error says how to configure it instead of guessing from loudness."""

from __future__ import annotations

import functools
import threading
from pathlib import Path
from typing import Any

from playscout.config import PerceptionSettings
from playscout.errors import install_hint
from playscout.perception.errors import EngineUnavailable

NOT_CONFIGURED = (
    "no audio-event model configured: set PLAYSCOUT_PERCEPTION__AUDIO_MODEL_DIR to a local "
    "Audio Flamingo 3 directory (transformers format)"
)


class AudioModel:
    """Processor + AF3 model on one device; generate() is serialised (one model, big memory)."""

    def __init__(self, model_dir: Path, device: str) -> None:
        try:
            import torch
            from transformers import AudioFlamingo3ForConditionalGeneration, AutoProcessor
        except ImportError:
            raise EngineUnavailable(
                f"Audio Flamingo 3 needs torch and transformers>=5: {install_hint('embed')}"
            ) from None
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        dtype = torch.bfloat16 if device.startswith("cuda") else torch.float32
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
            raise EngineUnavailable(
                f"cannot load Audio Flamingo 3 from {model_dir}: {reason}"
            ) from None
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
        raise EngineUnavailable(NOT_CONFIGURED)
    if not (model_dir / "config.json").is_file():
        raise EngineUnavailable(
            f"{model_dir} is not a transformers model directory (no config.json); "
            "set PLAYSCOUT_PERCEPTION__AUDIO_MODEL_DIR to a local Audio Flamingo 3 directory"
        )
    with _load_lock:
        return _load(str(model_dir.resolve()), settings.audio_device)
