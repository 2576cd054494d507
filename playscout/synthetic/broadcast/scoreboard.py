"""The on-screen scoreboard: `HOME 12  AWAY 9  Q2  07:41` in a dark box at a fixed place.

Fields sit in fixed cells (scores and clock right-aligned) so a reader can find them by position,
and the text uses the match_state contract (period_label, format_clock). Images are rendered with
PIL only when the displayed state changes and kept in a small cache (replays revisit old states).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from playscout.corpus.match_state import format_clock, period_label
from playscout.synthetic.sports import SPECS

from .timeline import State
from .yuv import Planes, YuvImage, to_yuv

FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")
BG = (14, 20, 34)
FG = (250, 250, 250)
_CACHE = 512
Box = tuple[int, int, int, int]  # x, y, w, h

# cell spans as fractions of the box width: (name, x0, x1, alignment)
_CELLS = (
    ("home_code", 0.035, 0.175, "left"),
    ("home_score", 0.175, 0.305, "right"),
    ("away_code", 0.355, 0.495, "left"),
    ("away_score", 0.495, 0.625, "right"),
    ("period", 0.655, 0.765, "center"),
    ("clock", 0.77, 0.975, "right"),
)


@lru_cache(maxsize=32)
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    if FONT.exists():
        return ImageFont.truetype(str(FONT), size)
    return ImageFont.load_default(size)


def _even(x: float) -> int:
    return max(2, round(x / 2) * 2)


@dataclass(frozen=True)
class ScoreboardLayout:
    box: Box
    fields: dict[str, Box]  # absolute frame coordinates of each text cell
    font_size: int


def scoreboard_layout(
    size: tuple[int, int], sport: str, codes: tuple[str, str]
) -> ScoreboardLayout:
    """Top-left box, half the frame wide; the font is the largest that fits every cell."""
    w, h = size
    s = h / 360
    x, y, bw, bh = _even(12 * s), _even(12 * s), _even(w * 0.5), _even(34 * s)
    widest = {
        "home_code": codes[0],
        "away_code": codes[1],
        "home_score": "888",
        "away_score": "888",
        "period": max((period_label(sport, p) for p in range(1, 8)), key=len),
        "clock": SPECS[sport].broadcast.widest_clock,
    }
    size_px = max(6, int(bh * 0.62))
    while size_px > 6:
        f = font(size_px)
        if all(f.getlength(widest[n]) <= (x1 - x0) * bw - 2 for n, x0, x1, _ in _CELLS):
            break
        size_px -= 1
    fields = {n: (x + int(x0 * bw), y, int((x1 - x0) * bw), bh) for n, x0, x1, _ in _CELLS}
    return ScoreboardLayout((x, y, bw, bh), fields, size_px)


class ScoreboardPainter:
    """Renders and pastes the scoreboard of one game."""

    def __init__(
        self,
        sport: str,
        size: tuple[int, int],
        codes: tuple[str, str],
        colors: tuple[tuple[int, int, int], tuple[int, int, int]],
    ) -> None:
        self.sport = sport
        self.codes = codes
        self.colors = colors
        self.layout = scoreboard_layout(size, sport, codes)
        self._cache: OrderedDict[State, YuvImage] = OrderedDict()

    def texts(self, state: State) -> dict[str, str]:
        period, clock, home, away = state
        return {
            "home_code": self.codes[0],
            "home_score": str(home),
            "away_code": self.codes[1],
            "away_score": str(away),
            "period": period_label(self.sport, period),
            "clock": format_clock(clock),
        }

    def image(self, state: State) -> np.ndarray:
        """RGB picture of the scoreboard showing `state` (also what tests compare frames with)."""
        x, _y, bw, bh = self.layout.box
        img = Image.new("RGB", (bw, bh), BG)
        d = ImageDraw.Draw(img)
        f = font(self.layout.font_size)
        tab = max(2, int(bw * 0.018))
        for (hx, _, _, _), color in zip(
            (self.layout.fields["home_code"], self.layout.fields["away_code"]),
            self.colors,
            strict=True,
        ):
            d.rectangle((hx - x - tab - 2, 2, hx - x - 3, bh - 3), fill=color)
        sep = int(0.64 * bw)
        d.line((sep, 4, sep, bh - 5), fill=(70, 80, 100), width=1)
        texts = self.texts(state)
        for name, x0, x1, align in _CELLS:
            text = texts[name]
            tw = f.getlength(text)
            cx0, cx1 = x0 * bw, x1 * bw
            tx = (
                cx0 if align == "left" else (cx1 - tw if align == "right" else (cx0 + cx1 - tw) / 2)
            )
            d.text((tx, bh / 2), text, font=f, fill=FG, anchor="lm")
        return np.asarray(img)

    def yuv(self, state: State) -> YuvImage:
        img = self._cache.get(state)
        if img is None:
            img = to_yuv(self.image(state))
            self._cache[state] = img
            if len(self._cache) > _CACHE:
                self._cache.popitem(last=False)
        return img

    def paste(self, p: Planes, state: State) -> None:
        x, y, _, _ = self.layout.box
        p.paste(self.yuv(state), x, y)
