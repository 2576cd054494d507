"""The hockey rink as the broadcast renderer draws it: rounded boards, red centre and goal
lines, blue lines, creases and faceoff circles (NHL dimensions, metres)."""

from __future__ import annotations

import math

from ...spec import RGB, Canvas

SURFACE: RGB = (232, 238, 245)


def paint(c: Canvas) -> None:
    L, W = c.length, c.width
    c.apron((70, 75, 90), 1.5)
    r = 8.5
    corner: list[tuple[float, float]] = []
    for cx, cy, a in (
        (L - r, r, -math.pi / 2),
        (L - r, W - r, 0.0),
        (r, W - r, math.pi / 2),
        (r, r, math.pi),
    ):
        corner += c.arc(cx, cy, r, a, a + math.pi / 2, 12)
    c.poly(corner, fill=(250, 230, 120), outline=(250, 230, 120), width=6.0)  # boards
    c.poly(corner, fill=SURFACE)
    red, blue = (205, 35, 45), (40, 80, 185)
    c.line([(L / 2, 0), (L / 2, W)], red, 2.5)
    for x in (L / 2 - 7.6, L / 2 + 7.6):
        c.line([(x, 0), (x, W)], blue, 2.5)
    for x in (3.4, L - 3.4):
        c.line([(x, 1.0), (x, W - 1.0)], red, 0.8)
        sgn = 1 if x < L / 2 else -1
        c.poly(
            c.arc(x, W / 2, 1.8, -math.pi / 2, math.pi / 2, 12)
            if sgn > 0
            else c.arc(x, W / 2, 1.8, math.pi / 2, 3 * math.pi / 2, 12),
            fill=(150, 200, 240),
        )
        c.rect(
            x - 1.1 * sgn if sgn > 0 else x,
            W / 2 - 0.9,
            x if sgn > 0 else x + 1.1,
            W / 2 + 0.9,
            fill=red,
        )
        for y in (W / 2 - 6.7, W / 2 + 6.7):
            c.line(c.arc(x + 6.3 * sgn, y, 4.5, 0, 2 * math.pi, 32), red, 0.8)
    c.line(c.arc(L / 2, W / 2, 4.5, 0, 2 * math.pi, 40), blue, 0.8)
