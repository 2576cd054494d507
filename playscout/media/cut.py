"""Cut clip files in one decoding pass, and keep the frames the visual embedder needs.

Windows are snapped to shot cuts, not keyframes, so clips are re-encoded (libx264) rather than
stream-copied: a copied clip would start at the previous keyframe and carry footage of another
window. Decoding once for all windows keeps the pass linear in the video length."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from playscout.media.errors import BrokenVideoError

AUDIO_RATE = 16_000


@dataclass(frozen=True, slots=True)
class Window:
    clip_id: str
    start: float
    end: float


@dataclass(slots=True)
class CutResult:
    files: dict[str, Path] = field(default_factory=dict)
    frames: dict[str, list[np.ndarray]] = field(default_factory=dict)  # RGB, short side = size
    decoded_frames: int = 0
    seconds: float = 0.0


class _ClipWriter:
    def __init__(self, path: Path, rate: Fraction, width: int, height: int, crf: int) -> None:
        import av

        self.container = av.open(str(path), "w")
        self.video = self.container.add_stream("libx264", rate=rate)
        self.video.width, self.video.height = width, height
        self.video.pix_fmt = "yuv420p"
        self.video.options = {"preset": "ultrafast", "crf": str(crf)}
        self.time_base = Fraction(1, 1) / rate
        self.audio: Any = None
        self.frames = 0

    def add_audio(self, samples: np.ndarray) -> None:
        import av

        if samples.size == 0:
            return
        self.audio = self.container.add_stream("aac", rate=AUDIO_RATE)
        self.audio.layout = "mono"
        frame = av.AudioFrame.from_ndarray(
            samples.astype(np.float32).reshape(1, -1), format="fltp", layout="mono"
        )
        frame.sample_rate = AUDIO_RATE
        frame.pts = 0
        self._pending_audio = frame

    def write(self, frame: Any) -> None:
        frame.pts = self.frames
        frame.time_base = self.time_base
        for packet in self.video.encode(frame):
            self.container.mux(packet)
        self.frames += 1

    def close(self) -> None:
        for packet in self.video.encode():
            self.container.mux(packet)
        if self.audio is not None:
            for packet in self.audio.encode(self._pending_audio):
                self.container.mux(packet)
            for packet in self.audio.encode():
                self.container.mux(packet)
        self.container.close()


def cut_clips(
    video: Path,
    windows: Sequence[Window],
    out_dir: Path,
    *,
    audio: np.ndarray | None = None,
    embed_fps: float = 1.0,
    max_embed_frames: int = 16,
    embed_size: int = 224,
    crf: int = 26,
    progress: Callable[[int, int], None] | None = None,
) -> CutResult:
    """Write `{clip_id}.mp4` per window into out_dir (audio: mono float32 at AUDIO_RATE for the
    whole video, sliced per window) and return up to max_embed_frames frames per window sampled
    at embed_fps, scaled so the short side is embed_size."""
    import av

    t0 = time.perf_counter()
    result = CutResult()
    ordered = sorted(windows, key=lambda w: w.start)
    if not ordered:
        return result
    out_dir.mkdir(parents=True, exist_ok=True)
    try:
        container = av.open(str(video))
    except (av.error.FFmpegError, OSError) as e:
        raise BrokenVideoError(f"{video}: cannot open for cutting ({e})") from None
    with container:
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        rate = stream.average_rate or stream.guessed_rate or Fraction(25)
        wi = 0
        writer: _ClipWriter | None = None
        targets: list[float] = []
        try:
            for frame in container.decode(stream):
                result.decoded_frames += 1
                t = float(frame.time) if frame.time is not None else 0.0
                while wi < len(ordered) and t >= ordered[wi].end:
                    if writer is not None:
                        writer.close()
                        writer = None
                    wi += 1
                    if progress:
                        progress(wi, len(ordered))
                if wi >= len(ordered):
                    break
                w = ordered[wi]
                if t < w.start:
                    continue
                if writer is None:
                    path = out_dir / f"{w.clip_id}.mp4"
                    writer = _ClipWriter(path, Fraction(rate), frame.width, frame.height, crf)
                    if audio is not None:
                        lo, hi = int(w.start * AUDIO_RATE), int(w.end * AUDIO_RATE)
                        writer.add_audio(audio[lo:hi])
                    result.files[w.clip_id] = path
                    result.frames[w.clip_id] = []
                    n = max(1, min(max_embed_frames, int((w.end - w.start) * embed_fps)))
                    step = (w.end - w.start) / n
                    targets = [w.start + (k + 0.5) * step for k in range(n)]
                if targets and t >= targets[0]:
                    while targets and t >= targets[0]:
                        targets.pop(0)
                    result.frames[w.clip_id].append(_rgb(frame, embed_size))
                writer.write(frame)
        except av.error.FFmpegError as e:
            raise BrokenVideoError(
                f"{video}: decoding failed at frame {result.decoded_frames} ({e})"
            ) from None
        finally:
            if writer is not None:
                writer.close()
    result.seconds = time.perf_counter() - t0
    return result


def _rgb(frame: Any, short_side: int) -> np.ndarray:
    w, h = frame.width, frame.height
    scale = short_side / min(w, h)
    size = (max(2, round(w * scale) // 2 * 2), max(2, round(h * scale) // 2 * 2))
    return frame.to_ndarray(format="rgb24", width=size[0], height=size[1])
