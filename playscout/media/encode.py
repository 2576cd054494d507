"""MP4 writer: H.264 (libx264, yuv420p, keyframe every 2 s) plus mono AAC, fed frame by frame
from yuv420p buffers so no colour conversion happens on the way to the encoder."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from types import TracebackType
from typing import Any

import av
import numpy as np


class Mp4Writer:
    def __init__(
        self,
        path: Path,
        fps: int,
        size: tuple[int, int],
        sample_rate: int,
        preset: str = "ultrafast",
        crf: int = 23,
        title: str = "",
    ) -> None:
        self.path = path
        self.fps = fps
        self.sr = sample_rate
        self.out: Any = av.open(str(path), "w")
        if title:
            self.out.metadata["title"] = title
        v: Any = self.out.add_stream("libx264", rate=fps)
        v.width, v.height = size
        v.pix_fmt = "yuv420p"
        v.codec_context.time_base = Fraction(1, fps)
        v.codec_context.gop_size = 2 * fps
        v.options = {"preset": preset, "crf": str(crf), "g": str(2 * fps), "keyint_min": str(fps)}
        self.video = v
        a: Any = self.out.add_stream("aac", rate=sample_rate, layout="mono")
        a.bit_rate = 64000
        self.audio = a
        self._tb_v = Fraction(1, fps)
        self._tb_a = Fraction(1, sample_rate)
        self._samples = 0

    def frame(self, buf: np.ndarray, index: int) -> None:
        f = av.VideoFrame.from_ndarray(buf, format="yuv420p")
        f.pts = index
        f.time_base = self._tb_v
        for pkt in self.video.encode(f):
            self.out.mux(pkt)

    def samples(self, x: np.ndarray) -> None:
        """Append mono float32 samples (contiguous with the previous call)."""
        if x.size == 0:
            return
        f = av.AudioFrame.from_ndarray(
            np.ascontiguousarray(x, np.float32)[None, :], format="fltp", layout="mono"
        )
        f.sample_rate = self.sr
        f.pts = self._samples
        f.time_base = self._tb_a
        self._samples += x.size
        for pkt in self.audio.encode(f):
            self.out.mux(pkt)

    def close(self) -> None:
        if self.out is None:
            return
        for stream in (self.video, self.audio):
            for pkt in stream.encode(None):
                self.out.mux(pkt)
        self.out.close()
        self.out = None

    def __enter__(self) -> Mp4Writer:
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        if et is None:
            self.close()
        elif self.out is not None:
            self.out.close()
            self.out = None


def frames_to_mp4(jpegs: list[bytes], fps: int = 1) -> bytes:
    """Sampled frames (JPEG) as one silent H.264 MP4 in memory: one native video input for a
    VLM server that takes video (T4's full games, as the reference passes Qwen3-VL-32B its
    768 frames as one video). Odd sizes are cropped by a pixel (yuv420p needs even ones)."""
    import io

    from PIL import Image

    if not jpegs:
        raise ValueError("frames_to_mp4: no frames")
    images = [np.asarray(Image.open(io.BytesIO(j)).convert("RGB")) for j in jpegs]
    h, w = images[0].shape[0] // 2 * 2, images[0].shape[1] // 2 * 2
    buf = io.BytesIO()
    with av.open(buf, "w", format="mp4") as out:
        stream: Any = out.add_stream("libx264", rate=fps)
        stream.width, stream.height, stream.pix_fmt = w, h, "yuv420p"
        stream.options = {"preset": "ultrafast", "crf": "23"}
        for image in images:
            frame = av.VideoFrame.from_ndarray(np.ascontiguousarray(image[:h, :w]), format="rgb24")
            out.mux(stream.encode(frame))
        out.mux(stream.encode(None))
    return buf.getvalue()
