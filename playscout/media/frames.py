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
# (h, w) of a decoded frame -> the (h, w) to convert it to (e.g. FramePreprocessor.target)
FrameSize = Callable[[int, int], tuple[int, int]]
IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png"})
# A target further ahead than this is reached by seeking rather than decoding every frame.
_SEEK_AHEAD_S = 2.0
# swscale's kernel for frames converted at a smaller size (`sample_arrays(size=)`); swscale
# widens it when it shrinks, so it antialiases. Bilinear, not the towers' bicubic: on 640x360
# and 1280x720 H.264 clips bicubic cost 22% / 15% of a clip's decoding, bilinear 16% / 3%,
# and ViT-B-32 clip vectors moved as little (min cosine to the full-size path 0.99976 vs
# 0.99965; docs/install.md, "Frames at the tower's size").
RESIZE_INTERPOLATION = "BILINEAR"


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
    path: Path | str,
    n: int = 8,
    window: tuple[float, float] | None = None,
    size: FrameSize | None = None,
    one_thread: bool = False,
) -> list[np.ndarray]:
    """The frames `sample_frames` picks, as HxWx3 uint8 RGB arrays (no JPEG round trip):
    what an image tower's batched preprocessing takes (embed/frames.py). As decoded, or, with
    `size` (the frame's (h, w) -> the (h, w) wanted), converted straight to that size by
    swscale (RESIZE_INTERPOLATION) while decoding, so a tower that needs 224 pixels a side
    is never handed, copied or uploaded a full-size frame. `one_thread` keeps the work in
    the calling thread (no FFmpeg decoding or scaling threads): for callers that decode many
    clips at once, a thread each, where FFmpeg's own threads per clip would oversubscribe
    the cores (`indexer.video.visual.decoded`)."""
    if n < 1:
        raise ValueError("sample_arrays: need n >= 1")
    if window is not None and not 0 <= window[0] <= window[1]:
        raise ValueError(f"sample_arrays: window {window} needs 0 <= start <= end")
    path = Path(path)
    if path.suffix.lower() in IMAGE_SUFFIXES:
        return [_image_array(path, size)]
    convert = _to_rgb(size, threads=1 if one_thread else 0)
    return [a for _, a in _decode_sampled(path, n, window, convert, one_thread)]


def _image_array(path: Path, size: FrameSize | None) -> np.ndarray:
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as img:
            rgb = img.convert("RGB")
    except (UnidentifiedImageError, OSError, ValueError) as e:
        raise MediaError(f"{path.name}: cannot read image ({type(e).__name__}: {e})") from None
    if size is not None:
        h, w = size(rgb.height, rgb.width)
        if (h, w) != (rgb.height, rgb.width):
            rgb = rgb.resize((w, h), Image.Resampling.BILINEAR)
    return np.asarray(rgb, dtype=np.uint8)


def _to_rgb(size: FrameSize | None, threads: int) -> Callable[[Any], np.ndarray]:
    """A frame -> RGB array converter with one swscale context for the clip's frames (they
    share a size), `threads` swscale threads (0: one per core)."""
    reformatter: Any = None

    def convert(frame: Any) -> np.ndarray:
        nonlocal reformatter
        if reformatter is None:  # PyAV is imported once a file is open, as _decode_sampled does
            from av.video.reformatter import VideoReformatter

            reformatter = VideoReformatter()
        h, w = (frame.height, frame.width) if size is None else size(frame.height, frame.width)
        resized = (h, w) != (frame.height, frame.width)
        out = reformatter.reformat(
            frame,
            width=w,
            height=h,
            format="rgb24",
            interpolation=RESIZE_INTERPOLATION if resized else None,
            threads=threads,
        )
        return out.to_ndarray()

    return convert


def _decode_sampled(
    path: Path,
    n: int,
    window: tuple[float, float] | None,
    convert: Callable[[Any], T],
    one_thread: bool = False,
) -> list[tuple[float, T]]:
    """(time, convert(frame)) of n evenly spaced frames of a video file, converted while the
    file is open; decoded by FFmpeg's threads (frame and slice), or by the calling thread
    alone with `one_thread`."""
    if not path.is_file():
        raise MediaError(f"{path.name}: file not found")
    import av

    try:
        with av.open(str(path)) as container:
            if not container.streams.video:
                raise MediaError(f"{path.name}: no video stream")
            stream = container.streams.video[0]
            stream.thread_type = "NONE" if one_thread else "AUTO"
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
