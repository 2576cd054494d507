"""Everything drawn over or instead of the scene: the REPLAY banner, sponsor banners that slide
over the scoreboard, full-screen commercial and studio cards, and the wipe band of replays.

All are rendered once with PIL, converted to YUV and cached; per frame they are pasted.
"""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from playscout.corpus.match_state import format_clock, period_label

from .plan import Ad
from .scoreboard import ScoreboardLayout, font
from .timeline import State
from .yuv import Planes, YuvImage, to_yuv, yuv_color

SPONSOR_NAMES = (
    ("NOVA ENERGY", "Power your game.", (230, 90, 20), (255, 200, 60)),
    ("SUMMIT BANK", "Banking at altitude.", (20, 60, 140), (120, 190, 255)),
    ("VELOCITY AIR", "Fly further.", (150, 20, 60), (255, 140, 170)),
    ("PIXELPHONE 9", "See every play.", (30, 30, 40), (90, 230, 200)),
    ("HARBOR INSURANCE", "Covered, whatever the score.", (0, 110, 100), (200, 255, 230)),
    ("REDLINE COLA", "Taste the overtime.", (190, 20, 30), (255, 235, 235)),
)
SLIDE = 0.35  # seconds a sponsor banner takes to slide in or out


def _gradient(w: int, h: int, a: tuple[int, int, int], b: tuple[int, int, int]) -> np.ndarray:
    t = (
        np.linspace(0.0, 1.0, w, dtype=np.float32)[None, :, None] * 0.7
        + np.linspace(0.0, 1.0, h, dtype=np.float32)[:, None, None] * 0.3
    )
    img = np.array(a, np.float32) * (1 - t) + np.array(b, np.float32) * t
    return img.astype(np.uint8)


def _fit(d: ImageDraw.ImageDraw, text: str, max_w: float, size: int) -> int:
    while size > 6 and d.textlength(text, font=font(size)) > max_w:
        size -= 1
    return size


class Overlays:
    def __init__(
        self,
        size: tuple[int, int],
        board: ScoreboardLayout,
        sport: str,
        teams: tuple[str, str],
        codes: tuple[str, str],
    ) -> None:
        self.w, self.h = size
        self.board = board
        self.sport = sport
        self.teams = teams
        self.codes = codes
        self._cards: dict[tuple[str, State], YuvImage] = {}
        self._ads: dict[tuple[int, str], YuvImage] = {}
        self.replay_banner = self._replay_banner()
        self.band = yuv_color((245, 180, 20))
        self.ticker = yuv_color((255, 255, 255))

    # ------------------------------------------------------------------ replay
    def _replay_banner(self) -> YuvImage:
        bh = self.board.box[3]
        bw = int(bh * 3.6) & ~1
        img = Image.new("RGB", (bw, bh), (200, 20, 30))
        d = ImageDraw.Draw(img)
        d.rectangle((0, 0, bh // 3, bh), fill=(250, 250, 250))
        size = _fit(d, "REPLAY", bw - bh // 2 - 6, int(bh * 0.6))
        d.text(
            ((bw + bh // 3) / 2, bh / 2),
            "REPLAY",
            font=font(size),
            fill=(255, 255, 255),
            anchor="mm",
        )
        return to_yuv(np.asarray(img))

    def paste_replay_banner(self, p: Planes) -> None:
        x = self.w - self.replay_banner.width - self.board.box[0]
        p.paste(self.replay_banner, x, self.board.box[1])

    def wipe(self, new: Planes, old: Planes, frac: float) -> None:
        """Left of the band: the new picture (already in `new`); right of it: the old one."""
        band = max(4, int(self.w * 0.05))
        edge = int(frac * (self.w + band)) - band
        new.copy_columns(old, edge + band, self.w)
        new.fill(edge, 0, edge + band, self.h, self.band)

    # ------------------------------------------------------------------ sponsor banners
    def _ad(self, sponsor: int, cover: str) -> YuvImage:
        key = (sponsor, cover)
        if key not in self._ads:
            name, slogan, a, b = SPONSOR_NAMES[sponsor]
            x, y, bw, bh = self.board.box
            w = bw + 2 * x if cover == "full" else int(bw * 0.55)
            h = bh + 2 * y if cover == "full" else bh
            w, h = w + (w & 1), h + (h & 1)
            img = Image.fromarray(_gradient(w, h, a, b))
            d = ImageDraw.Draw(img)
            text = f"{name}  {slogan}" if cover == "full" else name
            size = _fit(d, text, w - 8, int(bh * 0.55))
            d.text(
                (w / 2, h / 2),
                text,
                font=font(size),
                fill=(255, 255, 255),
                anchor="mm",
                stroke_width=1,
                stroke_fill=(0, 0, 0),
            )
            self._ads[key] = to_yuv(np.asarray(img))
        return self._ads[key]

    def paste_ad(self, p: Planes, ad: Ad, t: float) -> None:
        """Slides in from the left edge, holds over (part of) the scoreboard, slides back out."""
        img = self._ad(ad.sponsor, ad.cover)
        x, y, bw, _ = self.board.box
        if ad.cover == "full":
            tx, ty = 0, 0
        elif ad.cover == "left":
            tx, ty = x, y
        else:
            tx, ty = x + bw - img.width, y
        k = min(1.0, (t - ad.t0) / SLIDE, (ad.t1 - t) / SLIDE)
        p.paste(img, int(tx - (1 - max(0.0, k)) * (tx + img.width)), ty)

    # ------------------------------------------------------------------ break cards
    def card(self, key: str, state: State) -> YuvImage:
        ck = (key, state if key.startswith("studio") else (0, 0, 0, 0))
        if ck not in self._cards:
            rgb = (
                self._studio(key[7:], state)
                if key.startswith("studio:")
                else self._commercial(int(key[3:]))
            )
            self._cards[ck] = to_yuv(rgb)
        return self._cards[ck]

    def _commercial(self, sponsor: int) -> np.ndarray:
        name, slogan, a, b = SPONSOR_NAMES[sponsor]
        img = Image.fromarray(_gradient(self.w, self.h, a, b))
        d = ImageDraw.Draw(img)
        d.ellipse(
            (self.w * 0.62, self.h * 0.1, self.w * 1.1, self.h * 0.95),
            fill=tuple(min(255, c + 40) for c in b),
        )
        size = _fit(d, name, self.w * 0.8, int(self.h * 0.16))
        d.text(
            (self.w * 0.08, self.h * 0.42),
            name,
            font=font(size),
            fill=(255, 255, 255),
            anchor="lm",
            stroke_width=2,
            stroke_fill=(0, 0, 0),
        )
        d.text(
            (self.w * 0.08, self.h * 0.62),
            slogan,
            font=font(max(6, int(self.h * 0.07))),
            fill=(255, 255, 255),
            anchor="lm",
        )
        return np.asarray(img)

    def _studio(self, title: str, state: State) -> np.ndarray:
        img = Image.fromarray(_gradient(self.w, self.h, (10, 40, 90), (60, 120, 190)))
        d = ImageDraw.Draw(img)
        w, h = self.w, self.h
        d.rectangle((0, int(h * 0.22), w, int(h * 0.36)), fill=(230, 190, 40))
        ts = _fit(d, title, w * 0.9, int(h * 0.1))
        d.text((w / 2, h * 0.29), title, font=font(ts), fill=(20, 20, 30), anchor="mm")
        period, clock, home, away = state
        line = f"{self.teams[0]}  {home} - {away}  {self.teams[1]}"
        ls = _fit(d, line, w * 0.9, int(h * 0.08))
        d.text((w / 2, h * 0.55), line, font=font(ls), fill=(255, 255, 255), anchor="mm")
        sub = f"{self.codes[0]} vs {self.codes[1]}  |  {period_label(self.sport, period)} {format_clock(clock)}"
        d.text(
            (w / 2, h * 0.7),
            sub,
            font=font(max(6, int(h * 0.05))),
            fill=(210, 225, 250),
            anchor="mm",
        )
        return np.asarray(img)

    def paste_card(self, p: Planes, key: str, state: State, t: float) -> None:
        p.paste(self.card(key, state), 0, 0)
        bw = max(8, self.w // 10)
        x = int((t * self.w / 5.0) % (self.w + bw)) - bw
        p.fill(x, self.h - max(4, self.h // 45), x + bw, self.h, self.ticker)
