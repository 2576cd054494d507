"""A box drawn onto a frame: T8's goal-accuracy evaluator is shown the target player in a red
box on the clip's first frame (the reference renders it with ffmpeg `drawbox`, 3 px thick on
832x480 video, frame 0 only), so the question "the player in the red bounding box" has a
referent."""

from __future__ import annotations

import io

Box = tuple[float, float, float, float]  # x1, y1, x2, y2 in [0, 1] of the frame

RED = (255, 0, 0)
# The reference draws 3 px on 480-line video; the line keeps that share of the frame height.
_WIDTH_PER_LINE = 3 / 480


def draw_box(jpeg: bytes, box: Box, color: tuple[int, int, int] = RED, quality: int = 90) -> bytes:
    """The JPEG with `box` (normalised x1, y1, x2, y2) outlined in `color`."""
    from PIL import Image, ImageDraw

    x1, y1, x2, y2 = box
    if not (0 <= x1 < x2 <= 1 and 0 <= y1 < y2 <= 1):
        raise ValueError(f"box {box} is not x1 < x2, y1 < y2 inside [0, 1]")
    with Image.open(io.BytesIO(jpeg)) as img:
        image = img.convert("RGB")
    w, h = image.size
    width = max(2, round(h * _WIDTH_PER_LINE))  # 1 px would not survive JPEG chroma subsampling
    ImageDraw.Draw(image).rectangle(
        (int(x1 * w), int(y1 * h), int(x2 * w), int(y2 * h)), outline=color, width=width
    )
    buf = io.BytesIO()
    image.save(buf, format="JPEG", quality=quality)
    return buf.getvalue()
