"""Audio extraction for the speech and audio-event tools: decode a clip's first audio stream
with PyAV and resample it to the 16 kHz mono float32 that Whisper-family models expect.

PyAV (not an ffmpeg subprocess) so there is no shell, no temp file and one error type."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from playscout.media.errors import AudioError, NoAudioStreamError

__all__ = ["SAMPLE_RATE", "AudioError", "NoAudioStreamError", "decode_reason", "load_audio"]

SAMPLE_RATE = 16_000


def load_audio(
    path: str | Path, sample_rate: int = SAMPLE_RATE, max_seconds: float | None = None
) -> np.ndarray:
    """Decode the first audio stream of `path` to mono float32 in [-1, 1] at `sample_rate`.

    `max_seconds` stops decoding early so a long file cannot fill memory."""
    import av  # lazy: only the audio tools need PyAV

    path = Path(path)
    if not path.is_file():
        raise AudioError(f"{path.name}: file not found")
    limit = None if max_seconds is None else int(max_seconds * sample_rate)
    chunks: list[np.ndarray] = []
    got = 0
    try:
        with av.open(str(path)) as container:
            if not container.streams.audio:
                raise NoAudioStreamError(f"{path.name}: no audio stream")
            stream = container.streams.audio[0]
            resampler = av.AudioResampler(format="flt", layout="mono", rate=sample_rate)
            for frame in container.decode(stream):
                for out in resampler.resample(frame):
                    chunks.append(out.to_ndarray().reshape(-1))
                    got += chunks[-1].size
                if limit is not None and got >= limit:
                    break
            else:
                for out in resampler.resample(None):
                    chunks.append(out.to_ndarray().reshape(-1))
    except AudioError:
        raise
    except (av.FFmpegError, OSError, ValueError) as e:
        raise AudioError(f"{path.name}: cannot decode audio ({decode_reason(e)})") from None
    audio = np.concatenate(chunks).astype(np.float32, copy=False) if chunks else _empty()
    return audio[:limit] if limit is not None else audio


def _empty() -> np.ndarray:
    return np.zeros(0, dtype=np.float32)


def decode_reason(e: BaseException) -> str:
    """FFmpeg's reason without the file path it appends (paths never reach the model)."""
    strerror = getattr(e, "strerror", None)
    if isinstance(strerror, str) and strerror:
        return strerror
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__
