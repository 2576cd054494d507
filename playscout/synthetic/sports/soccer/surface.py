"""The soccer pitch as the broadcast renderer draws it: mowing stripes, touchlines, halfway
line, centre circle, penalty and goal areas and the goals (metres)."""

from __future__ import annotations

import math

from ...spec import RGB, Canvas

SURFACE: RGB = (62, 146, 64)


def paint(c: Canvas) -> None:
    L, W = c.length, c.width
    c.apron((52, 128, 56), 4.0)
    n = 14
    for k in range(n):
        col = (58, 140, 60) if k % 2 else (68, 154, 70)
        c.rect(L * k / n, 0, L * (k + 1) / n, W, fill=col)
    white = (240, 245, 240)
    c.rect(0, 0, L, W, outline=white, width=1.6)
    c.line([(L / 2, 0), (L / 2, W)], white, 1.6)
    c.line(c.arc(L / 2, W / 2, 9.15, 0, 2 * math.pi, 48), white, 1.6)
    for end in (0.0, L):
        sgn = 1 if end == 0 else -1
        for depth, half in ((16.5, 20.15), (5.5, 9.16)):
            x1 = end + sgn * depth
            c.rect(min(end, x1), W / 2 - half, max(end, x1), W / 2 + half, outline=white, width=1.6)
        c.rect(
            end - sgn * 2.0 if sgn > 0 else end,
            W / 2 - 3.66,
            end if sgn > 0 else end + 2.0,
            W / 2 + 3.66,
            outline=white,
            width=2.5,
        )
