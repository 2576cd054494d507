"""The broadcast scene: a playing surface seen by five cameras, players and a ball.

Each camera is a pre-drawn panorama (stands, surface, markings) in YUV that the camera pans
across, following the play; close-ups are crops of a panorama drawn at twice the scale, reverse
angles are mirrored and tinted. Players are filled rectangles in team colours whose positions are
smooth functions of a motion time (see GameClock.tau), so any instant can be re-rendered exactly
for a replay. The surface, its markings and the figures' look are the sport's
(SportSpec.broadcast).
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw

from playscout.synthetic.spec import RGB
from playscout.synthetic.sports import SPECS

from .yuv import Color, Planes, YuvImage, to_yuv, yuv_color

JERSEYS: tuple[RGB, ...] = (
    (200, 30, 45),
    (25, 70, 180),
    (245, 195, 30),
    (20, 125, 60),
    (115, 40, 140),
    (240, 115, 20),
    (25, 25, 30),
    (245, 245, 245),
    (0, 145, 165),
    (120, 20, 35),
)
_SKIN: tuple[RGB, ...] = ((241, 194, 150), (198, 134, 88), (141, 85, 54), (224, 172, 105))
_FAR = 0.82  # far touchline width relative to the near one (a touch of perspective)


def _dist(a: RGB, b: RGB) -> float:
    return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b, strict=True)))


def _scaled(c: RGB, k: float) -> RGB:
    return (int(c[0] * k), int(c[1] * k), int(c[2] * k))


def team_colors(sport: str, home_id: str, away_id: str) -> tuple[RGB, RGB]:
    """Jersey colours that differ from each other and from the playing surface."""
    surface = SPECS[sport].broadcast.surface
    ok = [c for c in JERSEYS if _dist(c, surface) > 90]
    home = ok[zlib.crc32(home_id.encode()) % len(ok)]
    rest = [c for c in ok if _dist(c, home) > 150]
    away = rest[zlib.crc32(away_id.encode()) % len(rest)]
    return home, away


@dataclass(frozen=True)
class Camera:
    """A view of a panorama: rows y0..y0+H, panning horizontally with the play."""

    pano: YuvImage
    scale: float  # 1 for wide shots, 2 for close-ups
    mirrored: bool
    y0: int
    field: tuple[float, float, float, float]  # cx, top, bottom, half width at the near side

    def map(self, u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        cx, top, bottom, half = self.field
        py = top + v * (bottom - top)
        px = cx + (u - 0.5) * 2 * half * (_FAR + (1 - _FAR) * v)
        if self.mirrored:
            px = self.pano.width - px
        return px, py


class _Painter:
    """Draws a panorama: crowd, apron and the sport's markings, in metres on the surface (the
    Canvas a sport's Broadcast.paint draws on)."""

    def __init__(self, sport: str, pw: int, ph: int, scale: float, seed: int, home: RGB) -> None:
        self.look = SPECS[sport].broadcast
        self.s = scale
        self.length, self.width = self.look.surface_size
        self.img = Image.new("RGB", (pw, ph), (40, 40, 48))
        self.d = ImageDraw.Draw(self.img)
        self.cx, self.top, self.bottom = pw / 2, 0.30 * ph, 0.97 * ph
        self.half = 0.45 * pw
        self.seed, self.home = seed, home

    def m(self, x: float, y: float) -> tuple[float, float]:
        u, v = x / self.length, y / self.width
        py = self.top + v * (self.bottom - self.top)
        return self.cx + (u - 0.5) * 2 * self.half * (_FAR + (1 - _FAR) * v), py

    def poly(
        self,
        pts: list[tuple[float, float]],
        fill: RGB | None = None,
        outline: RGB | None = None,
        width: float = 0.0,
    ) -> None:
        q = [self.m(x, y) for x, y in pts]
        if fill is not None:
            self.d.polygon(q, fill=fill)
        if outline is not None:
            self.d.line([*q, q[0]], fill=outline, width=max(1, round(width * self.s)))

    def line(self, pts: list[tuple[float, float]], color: RGB, width: float) -> None:
        self.d.line([self.m(x, y) for x, y in pts], fill=color, width=max(1, round(width * self.s)))

    def rect(
        self,
        x0: float,
        y0: float,
        x1: float,
        y1: float,
        fill: RGB | None = None,
        outline: RGB | None = None,
        width: float = 0.0,
    ) -> None:
        self.poly([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], fill, outline, width)

    def arc(
        self, cx: float, cy: float, r: float, a0: float, a1: float, n: int = 48
    ) -> list[tuple[float, float]]:
        return [
            (cx + r * math.cos(a0 + (a1 - a0) * i / n), cy + r * math.sin(a0 + (a1 - a0) * i / n))
            for i in range(n + 1)
        ]

    def crowd(self) -> None:
        """Stands: a mosaic of shirt colours (texture, so shots are not flat)."""
        rng = np.random.default_rng(self.seed)
        b = max(2, round(3 * self.s))
        h = int(self.top - 4 * self.s)
        w = self.img.width
        palette = np.array(
            [
                (170, 40, 50),
                (40, 60, 150),
                (200, 190, 170),
                (90, 90, 100),
                (210, 160, 60),
                (60, 120, 80),
                (150, 150, 160),
                self.home,
            ],
            np.float32,
        )
        cells = palette[rng.integers(0, len(palette), (h // b + 1, w // b + 1))]
        cells *= rng.uniform(0.65, 1.1, cells.shape[:2])[..., None]
        tex = np.repeat(np.repeat(cells, b, 0), b, 1)[:h, :w]
        arr = np.asarray(self.img).copy()
        arr[:h] = np.clip(tex, 0, 255).astype(np.uint8)
        self.img = Image.fromarray(arr)
        self.d = ImageDraw.Draw(self.img)
        self.d.rectangle((0, h, w, h + round(4 * self.s)), fill=(30, 30, 36))

    def draw(self) -> Image.Image:
        self.crowd()
        self.look.paint(self)
        return self.img

    def apron(self, color: RGB, margin: float) -> None:
        L, W, mg = self.length, self.width, margin
        self.rect(-mg * 3, -mg, L + mg * 3, W + mg * 2, fill=color)


def _panorama(
    sport: str,
    pw: int,
    ph: int,
    scale: float,
    seed: int,
    home: RGB,
    tint: tuple[float, float, float] | None,
) -> tuple[YuvImage, tuple[float, float, float, float]]:
    p = _Painter(sport, pw, ph, scale, seed, home)
    img = np.asarray(p.draw()).astype(np.float32)
    if tint is not None:
        img = np.clip(img * np.array(tint, np.float32), 0, 255)
    return to_yuv(img.astype(np.uint8)), (p.cx, p.top, p.bottom, p.half)


class Scene:
    """Surface, cameras and players of one game; draw() renders one camera view at a motion
    time into a frame."""

    def __init__(
        self, sport: str, size: tuple[int, int], colors: tuple[RGB, RGB], seed: int
    ) -> None:
        self.sport = sport
        self.w, self.h = size
        w, h = size
        pw = 4 * round(1.35 * w / 4)
        views: list[tuple[int, bool, float]] = [
            (0, False, 0.0),
            (1, True, 0.0),
            (2, False, 0.50 * h),
            (2, False, 0.95 * h),
            (3, True, 0.72 * h),
        ]
        panos = [
            _panorama(sport, pw, h, h / 360, seed, colors[0], None),
            _panorama(sport, pw, h, h / 360, seed + 1, colors[0], (0.93, 0.97, 1.08)),
            _panorama(sport, 2 * pw, 2 * h, 2 * h / 360, seed, colors[0], None),
            _panorama(sport, 2 * pw, 2 * h, 2 * h / 360, seed + 1, colors[0], (0.93, 0.97, 1.08)),
        ]
        self.cameras: list[Camera] = []
        for idx, mirrored, y0 in views:
            pano, fld = panos[idx]
            if mirrored:
                pano = pano.mirrored()
            self.cameras.append(Camera(pano, 2.0 if idx >= 2 else 1.0, mirrored, int(y0) & ~1, fld))
        self.look = SPECS[sport].broadcast
        self._players(colors, seed)
        self.ball_color = yuv_color(self.look.ball)
        self.fig = self.look.figure * h / 360

    def _players(self, colors: tuple[RGB, RGB], seed: int) -> None:
        rng = np.random.default_rng(seed + 17)
        n = self.look.per_side
        keeper = self.look.keeper
        au, av, cols, shorts, skin = [], [], [], [], []
        for side in (0, 1):
            for k in range(n):
                if keeper and k == 0:
                    u = 0.05 if side == 0 else 0.95
                    v = 0.5
                    jersey: RGB = (150, 220, 40) if side == 0 else (90, 90, 95)
                else:
                    u = (0.12 + 0.36 * rng.random()) if side == 0 else (0.52 + 0.36 * rng.random())
                    v = 0.12 + 0.76 * rng.random()
                    jersey = colors[side]
                au.append(u)
                av.append(v)
                cols.append(yuv_color(jersey))
                shorts.append(yuv_color(_scaled(jersey, 0.55)))
                skin.append(yuv_color(_SKIN[int(rng.integers(len(_SKIN)))]))
        m = len(au)
        self.au, self.av = np.array(au), np.array(av)
        self.keeper = np.array([keeper and k % n == 0 for k in range(m)])
        self.freq = rng.uniform(0.2, 0.7, (2, m))
        self.phase = rng.uniform(0, 2 * math.pi, (3, m))
        self.jersey: list[Color] = cols
        self.shorts: list[Color] = shorts
        self.skin: list[Color] = skin
        self.legs: list[Color] = {"shorts": shorts, "jersey": cols, "skin": skin}[self.look.legs]
        self.focus_phase = rng.uniform(0, 2 * math.pi, 5)

    def focus(self, tau: float) -> tuple[float, float]:
        """Where the play is (slow): cameras pan after it, players shift towards it."""
        ph = self.focus_phase
        u = 0.5 + 0.30 * math.sin(0.11 * tau + ph[0]) + 0.12 * math.sin(0.37 * tau + ph[1])
        v = 0.5 + 0.22 * math.sin(0.17 * tau + ph[2]) + 0.08 * math.sin(0.53 * tau + ph[3])
        return u, v

    def motion(self, tau: float) -> tuple[float, float, np.ndarray, np.ndarray]:
        fu, fv = self.focus(tau)
        bu = min(0.98, max(0.02, fu + 0.05 * math.sin(1.3 * tau + self.focus_phase[4])))
        bv = min(0.97, max(0.03, fv + 0.05 * math.cos(1.1 * tau)))
        pull = np.where(self.keeper, 0.04, 0.55)
        u = self.au + pull * (fu - 0.5) + 0.05 * np.sin(self.freq[0] * tau + self.phase[0])
        v = (
            self.av
            + np.where(self.keeper, 0.2, 0.3) * (fv - 0.5)
            + 0.06 * np.sin(self.freq[1] * tau + self.phase[1])
        )
        return bu, bv, np.clip(u, 0.01, 0.99), np.clip(v, 0.02, 0.98)

    def draw(self, p: Planes, cam_index: int, tau: float) -> None:
        cam = self.cameras[cam_index]
        bu, bv, pu, pv = self.motion(tau)
        fu, fv = self.focus(tau)
        fx, _ = cam.map(np.array(fu), np.array(fv))
        off = int(min(max(float(fx) - self.w / 2, 0), cam.pano.width - self.w))
        p.blit(cam.pano, off, cam.y0)
        off &= ~1
        xs, ys = cam.map(pu, pv)
        scale = cam.scale * (0.8 + 0.4 * pv) * self.fig
        legs = np.sin(9.0 * tau + self.phase[2])
        fill = p.fill
        order = np.argsort(pv, kind="stable").tolist()
        X, Y, S, G = (xs - off).tolist(), (ys - cam.y0).tolist(), scale.tolist(), legs.tolist()
        for i in order:
            x, y, s = X[i], Y[i], S[i]
            if x < -s or x > self.w + s or y < 0 or y - s > self.h:
                continue
            w = 0.36 * s
            x0 = int(x - w / 2)
            x1 = int(x + w / 2)
            step = int(G[i] * 0.12 * s)
            yb, ys_ = int(y), int(y - 0.28 * s)
            lw = max(2, int(0.3 * w))
            fill(x0 + step, ys_, x0 + step + lw, yb, self.legs[i])
            fill(x1 - step - lw, ys_, x1 - step, yb, self.legs[i])
            fill(x0, int(y - 0.42 * s), x1, ys_, self.shorts[i])
            fill(x0, int(y - 0.80 * s), x1, int(y - 0.42 * s), self.jersey[i])
            hw = max(2, int(0.3 * w))
            fill(int(x) - hw, int(y - s), int(x) + hw, int(y - 0.80 * s), self.skin[i])
        bx, by = cam.map(np.array(bu), np.array(bv))
        r = max(2, int(0.12 * self.fig * cam.scale))
        lift = (
            0.5 * self.fig * cam.scale * abs(math.sin(2.2 * tau)) if self.look.ball_bounces else 0.0
        )
        cx, cy = int(float(bx)) - off, int(float(by) - cam.y0 - lift)
        fill(cx - r, cy - r, cx + r, cy + r, self.ball_color)
