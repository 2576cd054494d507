"""Open a video once up front and refuse what cannot be indexed, before any work is done."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from playscout.media.errors import BrokenVideoError


@dataclass(frozen=True, slots=True)
class VideoInfo:
    path: Path
    duration: float  # seconds
    fps: float
    width: int
    height: int
    has_audio: bool


def probe_video(path: Path | str, *, min_duration: float = 1.0) -> VideoInfo:
    """Container metadata plus a real decode of the first frame: a file that merely has a video
    header (truncated download, wrong extension) must fail here, not halfway through indexing."""
    import av

    p = Path(path)
    if not p.is_file():
        raise BrokenVideoError(f"{p}: video file not found")
    try:
        with av.open(str(p)) as container:
            if not container.streams.video:
                raise BrokenVideoError(f"{p}: no video stream in the file")
            stream = container.streams.video[0]
            fps = float(stream.average_rate or stream.guessed_rate or 0)
            if container.duration is not None:
                duration = container.duration / 1_000_000
            elif stream.duration is not None and stream.time_base is not None:
                duration = float(stream.duration * stream.time_base)
            else:
                duration = 0.0
            first = next(container.decode(stream), None)
            if first is None:
                raise BrokenVideoError(f"{p}: no decodable video frame")
            info = VideoInfo(
                p, duration, fps, first.width, first.height, bool(container.streams.audio)
            )
    except BrokenVideoError:
        raise
    except (av.error.FFmpegError, OSError, ValueError, StopIteration) as e:
        raise BrokenVideoError(f"{p}: not a readable video ({type(e).__name__}: {e})") from None
    if info.fps <= 0:
        raise BrokenVideoError(f"{p}: the video stream has no frame rate")
    if info.duration < min_duration:
        raise BrokenVideoError(f"{p}: video is {info.duration:.2f} s long; nothing to index")
    return info
