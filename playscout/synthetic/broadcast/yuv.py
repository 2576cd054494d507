"""Drawing straight into YUV 4:2:0 frame planes (BT.601, limited range, as x264 expects).

Everything the renderer draws is a rectangle or a pre-converted image, so frames never pass
through an RGB->YUV conversion: that conversion alone would cost more than the whole frame.
Rectangles are snapped to even pixels so luma and chroma stay aligned.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

Color = tuple[int, int, int]  # Y, U, V


def yuv_color(rgb: tuple[int, int, int]) -> Color:
    r, g, b = (c / 255.0 for c in rgb)
    y = 16 + 65.481 * r + 128.553 * g + 24.966 * b
    u = 128 - 37.797 * r - 74.203 * g + 112.0 * b
    v = 128 + 112.0 * r - 93.786 * g - 18.214 * b
    return (round(y), round(u), round(v))


@dataclass(frozen=True, slots=True)
class YuvImage:
    """A pre-converted picture: full-resolution luma, half-resolution chroma."""

    y: np.ndarray
    u: np.ndarray
    v: np.ndarray

    @property
    def width(self) -> int:
        return int(self.y.shape[1])

    @property
    def height(self) -> int:
        return int(self.y.shape[0])

    def mirrored(self) -> YuvImage:
        return YuvImage(
            np.ascontiguousarray(self.y[:, ::-1]),
            np.ascontiguousarray(self.u[:, ::-1]),
            np.ascontiguousarray(self.v[:, ::-1]),
        )


def to_yuv(rgb: np.ndarray) -> YuvImage:
    """RGB uint8 (h, w, 3) with even h and w -> YuvImage (chroma averaged over 2x2 blocks)."""
    h, w = rgb.shape[:2]
    f = rgb.astype(np.float32) / 255.0
    r, g, b = f[..., 0], f[..., 1], f[..., 2]
    y = 16 + 65.481 * r + 128.553 * g + 24.966 * b
    u = 128 - 37.797 * r - 74.203 * g + 112.0 * b
    v = 128 + 112.0 * r - 93.786 * g - 18.214 * b
    u = u.reshape(h // 2, 2, w // 2, 2).mean(axis=(1, 3))
    v = v.reshape(h // 2, 2, w // 2, 2).mean(axis=(1, 3))

    def q(a: np.ndarray) -> np.ndarray:
        return np.clip(np.rint(a), 0, 255).astype(np.uint8)

    return YuvImage(q(y), q(u), q(v))


class Planes:
    """One frame buffer in yuv420p layout (h*3/2, w), with views on its three planes."""

    def __init__(self, width: int, height: int) -> None:
        if width % 4 or height % 4:
            raise ValueError(f"frame size {width}x{height} must be a multiple of 4 both ways")
        self.w, self.h = width, height
        self.buf = np.zeros((height * 3 // 2, width), dtype=np.uint8)
        q = height // 4
        self.y = self.buf[:height]
        self.u = self.buf[height : height + q].reshape(height // 2, width // 2)
        self.v = self.buf[height + q :].reshape(height // 2, width // 2)

    def fill(self, x0: int, y0: int, x1: int, y1: int, c: Color) -> None:
        """Filled rectangle [x0, x1) x [y0, y1), clipped and snapped to even coordinates."""
        x0 = max(0, x0) & ~1
        y0 = max(0, y0) & ~1
        x1 = min(self.w, x1 + 1) & ~1
        y1 = min(self.h, y1 + 1) & ~1
        if x1 <= x0 or y1 <= y0:
            return
        self.y[y0:y1, x0:x1] = c[0]
        self.u[y0 >> 1 : y1 >> 1, x0 >> 1 : x1 >> 1] = c[1]
        self.v[y0 >> 1 : y1 >> 1, x0 >> 1 : x1 >> 1] = c[2]

    def paste(self, img: YuvImage, x: int, y: int) -> None:
        """Paste at even (x, y), clipped to the frame (images may hang over any edge)."""
        x &= ~1
        y &= ~1
        sx = max(0, -x)
        sy = max(0, -y)
        w = min(img.width, self.w - x) - sx
        h = min(img.height, self.h - y) - sy
        if w <= 0 or h <= 0:
            return
        X, Y = x + sx, y + sy
        self.y[Y : Y + h, X : X + w] = img.y[sy : sy + h, sx : sx + w]
        cx, cy, cw, ch = X >> 1, Y >> 1, w >> 1, h >> 1
        self.u[cy : cy + ch, cx : cx + cw] = img.u[
            sy >> 1 : (sy >> 1) + ch, sx >> 1 : (sx >> 1) + cw
        ]
        self.v[cy : cy + ch, cx : cx + cw] = img.v[
            sy >> 1 : (sy >> 1) + ch, sx >> 1 : (sx >> 1) + cw
        ]

    def blit(self, img: YuvImage, sx: int, sy: int) -> None:
        """Fill the whole frame from img starting at even (sx, sy): a camera view of a panorama."""
        sx &= ~1
        sy &= ~1
        np.copyto(self.y, img.y[sy : sy + self.h, sx : sx + self.w])
        np.copyto(self.u, img.u[sy >> 1 : (sy + self.h) >> 1, sx >> 1 : (sx + self.w) >> 1])
        np.copyto(self.v, img.v[sy >> 1 : (sy + self.h) >> 1, sx >> 1 : (sx + self.w) >> 1])

    def copy_columns(self, other: Planes, x0: int, x1: int) -> None:
        """Take columns [x0, x1) from another frame (wipe transitions)."""
        x0 = max(0, x0) & ~1
        x1 = min(self.w, x1) & ~1
        if x1 <= x0:
            return
        self.y[:, x0:x1] = other.y[:, x0:x1]
        self.u[:, x0 >> 1 : x1 >> 1] = other.u[:, x0 >> 1 : x1 >> 1]
        self.v[:, x0 >> 1 : x1 >> 1] = other.v[:, x0 >> 1 : x1 >> 1]

    def rgb(self) -> np.ndarray:
        """The frame as RGB (debugging and tests only; slow)."""
        y = self.y.astype(np.float32) - 16
        u = np.repeat(np.repeat(self.u, 2, 0), 2, 1).astype(np.float32) - 128
        v = np.repeat(np.repeat(self.v, 2, 0), 2, 1).astype(np.float32) - 128
        r = 1.164 * y + 1.596 * v
        g = 1.164 * y - 0.392 * u - 0.813 * v
        b = 1.164 * y + 2.017 * u
        return np.clip(np.stack([r, g, b], -1), 0, 255).astype(np.uint8)
