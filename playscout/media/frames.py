"""Evenly spaced JPEG frames from a clip, as the reference's video_qa sends them (§3.4):
n frames over the whole clip, scaled down only so the long side is `long_side`, aspect kept.

PyAV is imported lazily so that agents without video work never load FFmpeg (defect 27).
Seeks land on keyframes, so after each seek frames are decoded forward to the target time.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from playscout.media.errors import MediaError

T = TypeVar("T")
IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png"})
# A target further ahead than this is reached by seeking rather than decoding every frame.
_SEEK_AHEAD_S = 2.0


def clip_duration(container: Any) -> float:
    """Seconds of the first video stream, else of the container (0 when neither says)."""
    stream = container.streams.video[0]
    if stream.duration is not None and stream.time_base is not None:
        return float(stream.duration * stream.time_base)
    if container.duration is not None:
        return float(container.duration) / 1_000_000
    return 0.0


@dataclass(frozen=True)
class SampledFrame:
    """A frame as a VLM is sent it: its time in the clip (seconds, as decoded) and its JPEG."""

    time: float
    jpeg: bytes


def encode_jpeg(image: Any, long_side: int, quality: int) -> bytes:
    """RGB, scaled down (never up) so the long side is `long_side`, bicubic, JPEG."""
    from PIL import Image

    image = image.convert("RGB")
    w, h = image.size
    if max(w, h) > long_side:
        scale = long_side / max(w, h)
        image = image.resize(
            (max(1, round(w * scale)), max(1, round(h * scale))), Image.Resampling.BICUBIC
        )
    buf = io.BytesIO()
    image.save(buf, format="JPEG", quality=quality)
    return buf.getvalue()


def _image(path: Path, long_side: int, quality: int) -> list[bytes]:
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as img:
            img.load()
            return [encode_jpeg(img, long_side, quality)]
    except (UnidentifiedImageError, OSError, ValueError) as e:
        raise MediaError(f"{path.name}: cannot read image ({type(e).__name__}: {e})") from None


def _targets(
    stream: Any, container: Any, n: int, window: tuple[float, float] | None = None
) -> list[float] | None:
    """Times (seconds) of n frames spread from the first to the last frame (of `window`, in
    seconds from the start, when given), or None when the file does not say how long it is."""
    tb = stream.time_base
    start = float(stream.start_time * tb) if stream.start_time is not None and tb else 0.0
    if stream.duration and tb:
        duration = float(stream.duration * tb)
    elif container.duration:
        duration = container.duration / 1_000_000
    else:
        return None
    rate = stream.average_rate or stream.guessed_rate
    frame_s = 1.0 / float(rate) if rate else 0.0
    first, last = start, start + max(duration - frame_s, 0.0)
    if window is not None:
        first, last = min(start + window[0], last), min(start + window[1], last)
    return [float(t) for t in np.linspace(first, last, n)]


def _frame_time(frame: Any, index: int, fallback_rate: float) -> float:
    if frame.time is not None:
        return float(frame.time)
    return index / fallback_rate


def _by_time(container: Any, stream: Any, targets: list[float]) -> list[Any]:
    rate = float(stream.average_rate or stream.guessed_rate or 25)
    half = 0.5 / rate
    chosen: list[Any] = []
    frames = container.decode(stream)
    current: Any = None
    current_t = float("-inf")
    count = 0
    for target in targets:
        if target - current_t > _SEEK_AHEAD_S and current is not None:
            container.seek(int(target / stream.time_base), stream=stream, backward=True)
            frames = container.decode(stream)
            current, current_t = None, float("-inf")
        while current_t < target - half:
            try:
                frame = next(frames)
            except StopIteration:
                break  # metadata promised more than the file holds: keep the last frame
            current, current_t = frame, _frame_time(frame, count, rate)
            count += 1
        if current is not None:
            chosen.append(current)
    return chosen


def _by_index(container: Any, stream: Any, n: int) -> list[Any]:
    """No duration in the file: decode everything, pick by index (clips are short)."""
    frames = list(container.decode(stream))
    if not frames:
        return []
    picks = np.linspace(0, len(frames) - 1, n).round().astype(int)
    return [frames[i] for i in picks]


def sample_frames(
    path: Path | str,
    n: int = 16,
    long_side: int = 336,
    quality: int = 90,
    window: tuple[float, float] | None = None,
) -> list[bytes]:
    """JPEG bytes of n frames evenly spaced over the clip (over `window`, seconds from its
    start, when given: the span a question is about); an image file gives one image."""
    return [f.jpeg for f in sample_frames_timed(path, n, long_side, quality, window)]


def sample_frames_timed(
    path: Path | str,
    n: int = 16,
    long_side: int = 336,
    quality: int = 90,
    window: tuple[float, float] | None = None,
) -> list[SampledFrame]:
    """`sample_frames` with each frame's time, so a trajectory can record which frames were
    sent (by time, never the pixels) and `media.timed_frames.jpeg_at` can show them again."""
    if n < 1 or long_side < 1 or not 1 <= quality <= 100:
        raise ValueError("sample_frames: need n >= 1, long_side >= 1 and 1 <= quality <= 100")
    if window is not None and not 0 <= window[0] <= window[1]:
        raise ValueError(f"sample_frames: window {window} needs 0 <= start <= end")
    path = Path(path)
    if path.suffix.lower() in IMAGE_SUFFIXES:
        if not path.is_file():
            raise MediaError(f"{path.name}: file not found")
        return [SampledFrame(0.0, j) for j in _image(path, long_side, quality)]
    return [
        SampledFrame(t, jpeg)
        for t, jpeg in _decode_sampled(
            path, n, window, lambda f: encode_jpeg(f.to_image(), long_side, quality)
        )
    ]


def sample_arrays(
    path: Path | str, n: int = 8, window: tuple[float, float] | None = None
) -> list[np.ndarray]:
    """The frames `sample_frames` picks, as decoded HxWx3 uint8 RGB arrays (no JPEG round
    trip, no rescale): what an image tower's batched preprocessing takes (embed/frames.py)."""
    if n < 1:
        raise ValueError("sample_arrays: need n >= 1")
    if window is not None and not 0 <= window[0] <= window[1]:
        raise ValueError(f"sample_arrays: window {window} needs 0 <= start <= end")
    path = Path(path)
    if path.suffix.lower() in IMAGE_SUFFIXES:
        from PIL import Image, UnidentifiedImageError

        try:
            with Image.open(path) as img:
                return [np.asarray(img.convert("RGB"), dtype=np.uint8)]
        except (UnidentifiedImageError, OSError, ValueError) as e:
            raise MediaError(f"{path.name}: cannot read image ({type(e).__name__}: {e})") from None
    return [a for _, a in _decode_sampled(path, n, window, lambda f: f.to_ndarray(format="rgb24"))]


def _decode_sampled(
    path: Path, n: int, window: tuple[float, float] | None, convert: Callable[[Any], T]
) -> list[tuple[float, T]]:
    """(time, convert(frame)) of n evenly spaced frames of a video file, converted while the
    file is open."""
    if not path.is_file():
        raise MediaError(f"{path.name}: file not found")
    import av

    try:
        with av.open(str(path)) as container:
            if not container.streams.video:
                raise MediaError(f"{path.name}: no video stream")
            stream = container.streams.video[0]
            stream.thread_type = "AUTO"
            targets = _targets(stream, container, n, window)
            frames = (
                _by_time(container, stream, targets)
                if targets is not None
                else _by_index(container, stream, n)
            )
            if not frames:
                raise MediaError(f"{path.name}: no decodable video frames")
            rate = float(stream.average_rate or stream.guessed_rate or 25)
            return [(round(_frame_time(f, i, rate), 3), convert(f)) for i, f in enumerate(frames)]
    except MediaError:
        raise
    except (av.FFmpegError, OSError, ValueError) as e:
        detail = " ".join(str(e).split()) or type(e).__name__
        raise MediaError(f"{path.name}: cannot decode video ({detail})") from None
