"""Real small video files for tests, written with PyAV: each frame is a flat grey whose level
encodes the frame index (level = 3 * index), so a test can tell which frames were sampled."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

LEVEL_STEP = 3


def write_video(
    path: Path,
    seconds: float = 3.0,
    fps: int = 25,
    size: tuple[int, int] = (640, 360),
    codec: str = "mpeg4",
    gop: int = 12,
) -> int:
    """Write the clip and return its frame count."""
    import av

    n = round(seconds * fps)
    w, h = size
    with av.open(str(path), "w") as out:
        stream: Any = out.add_stream(codec, rate=fps)
        stream.width, stream.height = w, h
        stream.pix_fmt = "yuv420p"
        stream.bit_rate = 4_000_000
        stream.codec_context.gop_size = gop
        stream.codec_context.time_base = Fraction(1, fps)
        for i in range(n):
            level = min(255, i * LEVEL_STEP)
            img = np.full((h, w, 3), level, dtype=np.uint8)
            frame = av.VideoFrame.from_ndarray(img, format="rgb24")
            frame.pts = i
            frame.time_base = Fraction(1, fps)
            for packet in stream.encode(frame):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)
    return n


def frame_index(jpeg: bytes) -> int:
    """Recover the frame index from a sampled JPEG's grey level."""
    import io

    from PIL import Image

    with Image.open(io.BytesIO(jpeg)) as img:
        level = float(np.asarray(img.convert("L")).mean())
    return round(level / LEVEL_STEP)
