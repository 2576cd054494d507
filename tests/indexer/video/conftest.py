"""Small real videos made with PyAV for the video-indexer tests."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest


def write_shots_video(
    path: Path,
    colours: list[tuple[int, int, int]],
    shot_seconds: list[float],
    *,
    fps: int = 25,
    size: tuple[int, int] = (160, 96),
    audio: bool = True,
) -> Path:
    """One solid-colour shot per entry, with a moving white square, and a 440 Hz tone."""
    import av

    w, h = size
    with av.open(str(path), "w") as out:
        vs = out.add_stream("libx264", rate=fps)
        vs.width, vs.height, vs.pix_fmt = w, h, "yuv420p"
        vs.options = {"preset": "ultrafast"}
        a_s = out.add_stream("aac", rate=16000) if audio else None
        if a_s is not None:
            a_s.layout = "mono"
        n = 0
        for colour, seconds in zip(colours, shot_seconds, strict=True):
            for _ in range(round(seconds * fps)):
                img = np.empty((h, w, 3), np.uint8)
                img[:] = colour
                x = (n * 2) % (w - 12)
                img[40:52, x : x + 12] = 255
                frame = av.VideoFrame.from_ndarray(img, format="rgb24")
                frame.pts, frame.time_base = n, Fraction(1, fps)
                for p in vs.encode(frame):
                    out.mux(p)
                n += 1
        for p in vs.encode():
            out.mux(p)
        if a_s is not None:
            total = sum(shot_seconds)
            t = np.arange(int(total * 16000)) / 16000
            tone = (0.3 * np.sin(2 * np.pi * 440 * t)).astype(np.float32).reshape(1, -1)
            af = av.AudioFrame.from_ndarray(tone, format="fltp", layout="mono")
            af.sample_rate, af.pts = 16000, 0
            for p in a_s.encode(af):
                out.mux(p)
            for p in a_s.encode():
                out.mux(p)
    return path


@pytest.fixture(scope="session")
def three_shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """14 s: red 4 s, green 5 s, blue 5 s (cuts at 4 s and 9 s)."""
    path = tmp_path_factory.mktemp("video") / "three_shots.mp4"
    return write_shots_video(path, [(200, 30, 30), (30, 180, 40), (30, 40, 200)], [4, 5, 5])
