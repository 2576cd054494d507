"""Decoding for the scoreboard reader: PyAV with threaded decoding, luma plane only (the reader
never needs colour, and skipping the RGB conversion is most of the per-frame cost)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from playscout.media.audio import decode_reason
from playscout.media.errors import BrokenVideoError
from playscout.media.frames import clip_duration

SEEK_ABOVE = 240.0  # seconds of video above which the locator seeks instead of scanning


# 8-bit pixel formats whose first plane is the luma, one byte per pixel
_LUMA_FIRST = frozenset(
    {"yuv420p", "yuvj420p", "yuv422p", "yuvj422p", "yuv444p", "yuvj444p", "nv12", "nv21", "gray"}
)


def luma(frame: Any) -> np.ndarray:
    """The Y plane of a decoded frame as an (h, w) uint8 view (no colour conversion).

    Planar YUV gives luma directly; other pixel formats are converted (rare for broadcasts)."""
    if frame.format.name in _LUMA_FIRST:
        plane = frame.planes[0]
        buf = np.frombuffer(plane, np.uint8)
        return buf.reshape(-1, plane.line_size)[: frame.height, : frame.width]
    return np.asarray(frame.to_ndarray(format="gray"))


@contextmanager
def open_video(path: Path) -> Iterator[tuple[Any, Any, float]]:
    """(container, video stream, duration s); BrokenVideoError names the file otherwise."""
    import av

    if not path.is_file():
        raise BrokenVideoError(f"{path}: video file not found")
    try:
        container = av.open(str(path))
    except (av.FFmpegError, OSError, ValueError) as e:
        raise BrokenVideoError(f"{path}: not a readable video ({decode_reason(e)})") from None
    try:
        if not container.streams.video:
            raise BrokenVideoError(f"{path}: no video stream in the file")
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        yield container, stream, clip_duration(container)
    finally:
        container.close()


def frame_time(frame: Any, stream: Any) -> float:
    if frame.pts is not None and stream.time_base is not None:
        return float(frame.pts * stream.time_base)
    return float(frame.time or 0.0)


def sample_luma(path: Path, n: int) -> tuple[list[tuple[float, np.ndarray]], float]:
    """About n luma frames spread evenly over the video (seeking), plus its duration.

    Used by the locator: a few dozen frames are enough to tell the persistent overlay from the
    changing picture, and seeking keeps this independent of the video's length (any frame
    within half a step of the target will do, so most seeks stop at their key frame)."""
    import av

    out: list[tuple[float, np.ndarray]] = []
    with open_video(path) as (container, stream, duration):
        try:
            if duration <= SEEK_ABOVE or n <= 1:
                # short video: one sequential pass is cheaper than n seeks to key frames
                stream.codec_context.skip_frame = "NONREF"
                step = max(duration, 1.0) / max(n, 1)
                nxt = 0.0
                for frame in container.decode(stream):
                    t = frame_time(frame, stream)
                    if t + 1e-6 >= nxt:
                        out.append((t, luma(frame).copy()))
                        nxt = t + step
            else:
                step = duration / n
                for k in range(n):
                    target = (k + 0.5) * step
                    container.seek(int(target / stream.time_base), stream=stream, backward=True)
                    for frame in container.decode(stream):
                        t = frame_time(frame, stream)
                        if t >= target - step / 2 and (not out or t > out[-1][0] + step / 4):
                            out.append((t, luma(frame).copy()))
                            break
        except (av.FFmpegError, OSError, ValueError) as e:
            if not out:
                raise BrokenVideoError(
                    f"{path}: cannot decode video ({decode_reason(e)})"
                ) from None
    if not out:
        raise BrokenVideoError(f"{path}: no decodable video frame")
    return out, duration


def decode_errors() -> tuple[type[BaseException], ...]:
    """What a decoding loop over `open_video` may raise for a damaged file."""
    import av

    return (av.FFmpegError, OSError, ValueError)
