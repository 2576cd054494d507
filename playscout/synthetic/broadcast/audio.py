"""The broadcast sound: crowd noise that swells after scores, a music bed under break cards,
and the commentary lines on top. Computed chunk by chunk as a function of game time (never the
whole game in memory), so an excerpt hears the same samples as the full video."""

from __future__ import annotations

import bisect
import math

import numpy as np

from .commentary import SAMPLE_RATE

_LOOP = 1 << 18  # ~11.9 s of crowd noise, seamless (made periodic in the frequency domain)
CROWD_RMS = 0.03


def _crowd_loop(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    spec = rng.standard_normal(_LOOP // 2 + 1) + 1j * rng.standard_normal(_LOOP // 2 + 1)
    f = np.fft.rfftfreq(_LOOP, 1.0 / SAMPLE_RATE)
    shape = np.where((f > 120) & (f < 4000), 1.0 / np.sqrt(np.maximum(f, 1.0)), 0.0)
    x = np.fft.irfft(spec * shape, _LOOP)
    return (x * (CROWD_RMS / (x.std() + 1e-12))).astype(np.float32)


class AudioTrack:
    """Samples of the broadcast audio; times are game seconds, sample n is at n / SAMPLE_RATE."""

    def __init__(
        self,
        seed: int,
        cheers: list[float],
        breaks: list[tuple[float, float]],
        lines: list[tuple[float, np.ndarray]],
    ) -> None:
        self.sr = SAMPLE_RATE
        self.loop = _crowd_loop(seed)
        self.cheers = sorted(cheers)
        self.breaks = sorted(breaks)
        self.lines = sorted(lines, key=lambda x: x[0])
        self._line_t = [t for t, _ in self.lines]
        self._max_line = max((len(c) for _, c in self.lines), default=0) / self.sr

    def chunk(self, a: int, b: int) -> np.ndarray:
        """Absolute samples [a, b) as float32 in [-1, 1]."""
        n = b - a
        if n <= 0:
            return np.zeros(0, np.float32)
        idx = np.arange(a, b, dtype=np.int64)
        t = idx / self.sr
        gain = 0.85 + 0.15 * np.sin(2 * math.pi * 0.07 * t)
        t0, t1 = a / self.sr, b / self.sr
        for c in self.cheers[
            bisect.bisect_left(self.cheers, t0 - 10.0) : bisect.bisect_right(self.cheers, t1)
        ]:
            dt = t - c
            on = (dt >= 0) & (dt < 10.0)
            if on.any():
                d = dt[on]
                gain[on] += 2.5 * (1 - np.exp(-d / 0.3)) * np.exp(-d / 3.0)
        out = self.loop[idx % _LOOP] * gain
        for s, e in self.breaks:
            if e <= t0 or s >= t1:
                continue
            m = (t >= s) & (t < e)
            tb = t[m]
            pad = sum(np.sin(2 * math.pi * f * tb) for f in (220.0, 277.18, 329.63)) / 3
            out[m] = out[m] * 0.2 + 0.05 * pad * (0.6 + 0.4 * np.sin(2 * math.pi * 0.5 * tb))
        lo = bisect.bisect_left(self._line_t, t0 - self._max_line)
        for start, clip in self.lines[lo : bisect.bisect_right(self._line_t, t1)]:
            s0 = round(start * self.sr)
            i0, i1 = max(a, s0), min(b, s0 + len(clip))
            if i1 > i0:
                out[i0 - a : i1 - a] += 0.9 * clip[i0 - s0 : i1 - s0]
        return np.clip(out, -1.0, 1.0).astype(np.float32)
