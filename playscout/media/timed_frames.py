"""Frames at chosen seconds of a clip, with the time each frame really shows.

`indexer.media.frames.sample_frames` returns evenly spaced JPEGs without timestamps; OCR needs
the frame time in its answer and arbitrary times ("the scoreboard at 7.5 s"), so this module
decodes with PyAV directly and keeps the pixels (no JPEG round trip before OCR)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playscout.media.audio import decode_reason
from playscout.media.errors import VideoError
from playscout.media.frames import (
    IMAGE_SUFFIXES,
    SampledFrame,
    clip_duration,
    encode_jpeg,
    sample_frames_timed,
)

_UNSCALED = 1 << 30  # a long side no frame reaches: frames_at leaves the pixels as decoded
SEEK_GAP_S = 8.0  # decode forward for shorter gaps; seek (to the previous keyframe) for longer


@dataclass(frozen=True)
class TimedFrame:
    time: float  # seconds into the clip of the decoded frame
    image: Any  # PIL.Image.Image (RGB)


def even_times(duration: float, n: int) -> list[float]:
    """Centres of n equal slices: never the black first frame, never past the end."""
    if duration <= 0:
        return [0.0]
    return [round(duration * (i + 0.5) / n, 3) for i in range(n)]


def frames_at(
    path: Path, times: list[float] | None, n: int, long_side: int
) -> tuple[list[TimedFrame], float]:
    """The first frame at or after each requested time (or n evenly spaced frames), scaled so
    the long side is at most `long_side`; returns the frames and the clip duration."""
    import av  # lazy: only the perception tools decode video

    if not path.is_file():
        raise VideoError(f"{path.name}: file not found")
    try:
        with av.open(str(path)) as container:
            if not container.streams.video:
                raise VideoError(f"{path.name}: no video stream")
            stream = container.streams.video[0]
            stream.thread_type = "AUTO"
            duration = clip_duration(container)
            wanted = sorted(set(times)) if times else even_times(duration, n)
            frames = _decode_at(container, stream, wanted)
    except VideoError:
        raise
    except (av.FFmpegError, OSError, ValueError) as e:
        raise VideoError(f"{path.name}: cannot decode video ({decode_reason(e)})") from None
    if not frames:
        raise VideoError(f"{path.name}: no decodable frames")
    return [TimedFrame(f.time, _scaled(f.image, long_side)) for f in frames], duration


def _decode_at(container: Any, stream: Any, wanted: list[float]) -> list[TimedFrame]:
    """One forward pass, seeking only across long gaps (each target at most once, so a GOP
    longer than the gap cannot loop)."""
    out: list[TimedFrame] = []
    i = 0
    last: tuple[float, Any] | None = None
    sought: set[float] = set()
    seek_to: float | None = wanted[0] if wanted[0] > SEEK_GAP_S else None
    while i < len(wanted):
        if seek_to is not None and stream.time_base is not None:
            sought.add(seek_to)
            container.seek(int(seek_to / stream.time_base), stream=stream, backward=True)
        seek_to = None
        for frame in container.decode(stream):
            t = float(frame.time or 0.0)
            last = (t, frame)
            while i < len(wanted) and t + 1e-3 >= wanted[i]:
                if not out or out[-1].time != round(t, 3):
                    out.append(TimedFrame(round(t, 3), frame.to_image()))
                i += 1
            if i < len(wanted) and wanted[i] - t > SEEK_GAP_S and wanted[i] not in sought:
                seek_to = wanted[i]
                break
        if seek_to is None:
            break  # end of stream
    if i < len(wanted) and last is not None and (not out or out[-1].time != round(last[0], 3)):
        out.append(TimedFrame(round(last[0], 3), last[1].to_image()))  # times past the end
    return out


def _scaled(image: Any, long_side: int) -> Any:
    w, h = image.size
    scale = long_side / max(w, h)
    if scale >= 1.0:
        return image.convert("RGB")
    return image.convert("RGB").resize((max(1, round(w * scale)), max(1, round(h * scale))))


def jpeg_at(path: Path, time: float, long_side: int, quality: int) -> SampledFrame:
    """The frame that `sample_frames_timed` recorded at `time`, encoded as it was sent (same
    frame, same scaling and JPEG settings): what the run browser shows of a video_qa call."""
    if path.suffix.lower() in IMAGE_SUFFIXES:
        return sample_frames_timed(path, 1, long_side, quality)[0]
    frames, _ = frames_at(path, [time], 1, _UNSCALED)
    return SampledFrame(frames[0].time, encode_jpeg(frames[0].image, long_side, quality))


def thumbnail(path: Path, long_side: int, quality: int = 80) -> SampledFrame:
    """The middle frame of a clip, small."""
    if path.suffix.lower() in IMAGE_SUFFIXES:
        return sample_frames_timed(path, 1, long_side, quality)[0]
    frames, _ = frames_at(path, None, 1, _UNSCALED)
    return SampledFrame(frames[0].time, encode_jpeg(frames[0].image, long_side, quality))
