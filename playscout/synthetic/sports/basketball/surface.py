"""The basketball court as the broadcast renderer draws it: boards, painted keys in the home
colour, three-point arcs, rims and the centre circle (FIBA dimensions, metres)."""

from __future__ import annotations

import math

from ...spec import RGB, Canvas

SURFACE: RGB = (200, 150, 95)


def _scaled(c: RGB, k: float) -> RGB:
    return (int(c[0] * k), int(c[1] * k), int(c[2] * k))


def paint(c: Canvas) -> None:
    L, W = c.length, c.width
    c.apron((150, 100, 60), 2.5)
    c.rect(0, 0, L, W, fill=SURFACE)
    for k in range(1, 30):  # floor boards
        c.line([(0, W * k / 30), (L, W * k / 30)], (188, 138, 86), 0.6)
    white = (245, 245, 240)
    key = _scaled(c.home, 0.75)
    for end in (0.0, L):
        x1 = 5.8 if end == 0 else L - 5.8
        c.rect(
            min(end, x1),
            W / 2 - 2.45,
            max(end, x1),
            W / 2 + 2.45,
            fill=key,
            outline=white,
            width=1.6,
        )
        hx = 1.575 if end == 0 else L - 1.575
        a0, a1 = (
            (-math.pi / 2 + 0.35, math.pi / 2 - 0.35)
            if end == 0
            else (math.pi / 2 + 0.35, 3 * math.pi / 2 - 0.35)
        )
        c.line(c.arc(hx, W / 2, 6.75, a0, a1), white, 1.6)
        c.line(c.arc(x1, W / 2, 1.8, 0, 2 * math.pi), white, 1.6)
        c.poly(c.arc(hx, W / 2, 0.35, 0, 2 * math.pi, 16), outline=(240, 100, 20), width=2.0)
    c.rect(0, 0, L, W, outline=white, width=2.0)
    c.line([(L / 2, 0), (L / 2, W)], white, 1.6)
    c.poly(c.arc(L / 2, W / 2, 1.8, 0, 2 * math.pi), fill=key, outline=white, width=1.6)
