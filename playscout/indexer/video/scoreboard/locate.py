"""Find the scoreboard without knowing where it is (ASAP §3.1).

A broadcast's picture changes (camera moves, cuts, commercials) while the scoreboard overlay stays
put, and its text changes only gradually (a clock digit a second). So over a few dozen frames
spread across the video, pixels that are edges in most frames mark the overlay. Candidate
regions of persistent edges are then confirmed by full OCR (detection + recognition) on a few
crops: the scoreboard is the region whose text holds a MM:SS clock. Its dark box gives the
reference template used later to reject occluded or restyled frames (ASAP App. A).
"""

from __future__ import annotations

import re
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np

from playscout.indexer.video.errors import NoScoreboardError
from playscout.indexer.video.scoreboard.layout import classify, ink_mask, read_code, words
from playscout.indexer.video.scoreboard.models import Box, FieldName, ScoreboardLayout
from playscout.media.luma import sample_luma
from playscout.perception.ocr import get_detector, get_engine

_EDGE = 40  # luma step that counts as an edge
_PERSIST = (0.45, 0.25)  # share of sampled frames a pixel is an edge in (tried in turn)
_CELL = 8  # grid cell (px) for grouping persistent edges into regions
_FIELDS = 6  # codes, scores, period, clock


class Located:
    """The layout plus what the reader needs that is not serialised: the reference template of
    the box and the mask of its static pixels."""

    def __init__(
        self,
        layout: ScoreboardLayout,
        template: np.ndarray,
        static: np.ndarray,
        min_gap: int,
        polarity: int,
        deco: np.ndarray,
    ) -> None:
        self.layout = layout
        self.template = template
        self.static = static
        self.min_gap = min_gap
        self.polarity = polarity
        self.deco = deco  # box columns holding decoration, never text


def _edges(g: np.ndarray) -> np.ndarray:
    a = g.astype(np.int16)
    e = np.zeros(g.shape, bool)
    e[:, 1:] |= np.abs(a[:, 1:] - a[:, :-1]) > _EDGE
    e[1:, :] |= np.abs(a[1:, :] - a[:-1, :]) > _EDGE
    return e


def _regions(persist: np.ndarray) -> list[tuple[float, Box]]:
    """Connected groups of grid cells dense in persistent edges, scored by their edge count."""
    h, w = persist.shape
    gh, gw = h // _CELL, w // _CELL
    cells = persist[: gh * _CELL, : gw * _CELL].reshape(gh, _CELL, gw, _CELL).mean(axis=(1, 3))
    on = cells > 0.04
    seen = np.zeros_like(on)
    out: list[tuple[float, Box]] = []
    for y, x in zip(*np.nonzero(on), strict=True):
        if seen[y, x]:
            continue
        q = deque([(y, x)])
        seen[y, x] = True
        ys, xs = [], []
        while q:
            cy, cx = q.popleft()
            ys.append(cy)
            xs.append(cx)
            # horizontal neighbours up to two cells away: word gaps inside the overlay
            for dy, dx in ((0, 1), (0, -1), (1, 0), (-1, 0), (0, 2), (0, -2)):
                ny, nx = cy + dy, cx + dx
                if 0 <= ny < gh and 0 <= nx < gw and on[ny, nx] and not seen[ny, nx]:
                    seen[ny, nx] = True
                    q.append((ny, nx))
        box = Box(
            x0=min(xs) * _CELL,
            y0=min(ys) * _CELL,
            x1=(max(xs) + 1) * _CELL,
            y1=(max(ys) + 1) * _CELL,
        )
        if box.width < 3 * box.height or box.height < 8 or box.width * box.height > 0.3 * h * w:
            continue
        score = float(persist[box.y0 : box.y1, box.x0 : box.x1].sum())
        out.append((score, box))
    out.sort(key=lambda sb: -sb[0])
    return out


def _grow(box: Box, h: int, w: int, m: int) -> Box:
    return Box(
        x0=max(0, box.x0 - m), y0=max(0, box.y0 - m), x1=min(w, box.x1 + m), y1=min(h, box.y1 + m)
    )


_CLOCK_ANY = re.compile(r"\d{1,3}\s?:\s?[0-5]\d")


Detected = list[tuple[tuple[float, float, float, float], str]]


def _clock_line(detected: Detected) -> Detected:
    """The detected text pieces of the line holding a game clock (MM:SS): the clock piece and
    its neighbours on the same row, chained while the gap is under six text heights (a lone
    score digit is often missed by detection, leaving a wide gap between the fields it sat
    in), so a REPLAY banner or a logo further along the row is not taken for the scoreboard."""
    clocks = [d for d in detected if _CLOCK_ANY.search(d[1])]
    if not clocks:
        return []
    (cx0, cy0, cx1, cy1), _ = clocks[0]
    h = max(1.0, cy1 - cy0)
    row = sorted(
        (d for d in detected if abs((d[0][1] + d[0][3]) / 2 - (cy0 + cy1) / 2) < h),
        key=lambda d: d[0][0],
    )
    k = next(i for i, d in enumerate(row) if d[0] == (cx0, cy0, cx1, cy1))
    lo = hi = k
    while lo > 0 and row[lo][0][0] - row[lo - 1][0][2] < 6 * h:
        lo -= 1
    while hi + 1 < len(row) and row[hi + 1][0][0] - row[hi][0][2] < 6 * h:
        hi += 1
    return row[lo : hi + 1]


def _text_bbox(detected: Detected) -> tuple[int, int, int, int]:
    x0 = min(b[0] for b, _ in detected)
    y0 = min(b[1] for b, _ in detected)
    x1 = max(b[2] for b, _ in detected)
    y1 = max(b[3] for b, _ in detected)
    return int(x0), int(y0), int(np.ceil(x1)), int(np.ceil(y1))


def _dark_box(tmpl: np.ndarray, text: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """Grow the text bbox to the overlay's uniform background rectangle (within the crop)."""
    tx0, ty0, tx1, ty1 = text
    inner = tmpl[ty0:ty1, tx0:tx1]
    # background level: the most common luma around the text
    ring = np.concatenate(
        [tmpl[max(0, ty0 - 2) : ty0 + 1, tx0:tx1].ravel(), tmpl[ty1 - 1 : ty1 + 2, tx0:tx1].ravel()]
    )
    bg = float(np.median(ring)) if ring.size else float(np.median(inner))
    like = np.abs(tmpl.astype(np.int16) - bg) < 24
    x0, y0, x1, y1 = tx0, ty0, tx1, ty1
    h, w = tmpl.shape

    def rows_ok(y: int) -> bool:
        return bool(like[y, x0:x1].mean() > 0.85)

    def cols_ok(x: int) -> bool:
        return bool(like[y0:y1, x].mean() > 0.6)

    while y0 > 0 and rows_ok(y0 - 1):
        y0 -= 1
    while y1 < h and rows_ok(y1):
        y1 += 1
    while x0 > 0 and cols_ok(x0 - 1):
        x0 -= 1
    while x1 < w and cols_ok(x1):
        x1 += 1
    return x0, y0, x1, y1


def locate(path: Path, sport: str, *, engine: str = "ppocr", n_frames: int = 48) -> Located:
    """Locate the scoreboard of `path` and learn its field layout; NoScoreboardError otherwise."""
    frames, _duration = sample_luma(path, n_frames)
    if len(frames) < 3:
        raise NoScoreboardError(f"{path}: too few frames ({len(frames)}) to find a scoreboard")
    stack = [f for _, f in frames]
    h, w = stack[0].shape
    edges = np.stack([_edges(f) for f in stack])
    persist = edges.mean(axis=0)
    # per quarter of the video too: a half-time break can hide the scoreboard in most sampled
    # frames overall while it persists through the quarters that are play
    quarters = np.array_split(edges, min(4, len(stack) // 6 or 1))
    local = np.max([q.mean(axis=0) for q in quarters], axis=0)
    detector = get_detector()
    tried: list[Box] = []
    errors: list[NoScoreboardError] = []
    for share in _PERSIST:  # lower the bar until a clock is confirmed
        for pmap in (persist, local):
            for _, cand in _regions(pmap >= share)[:5]:
                region = _grow(cand, h, w, 8)
                if any(_iou(region, b) > 0.7 for b in tried):
                    continue
                tried.append(region)
                found = _confirm(stack, pmap >= share, region, detector)
                if found is not None:
                    learned = _try_learn(path, sport, stack, found, engine, errors)
                    if learned is not None:
                        return learned
    # fallback: full-frame OCR on a few frames (an overlay without a strong box edge)
    # or one merged with a textured crowd into a region too big to be an overlay
    for i in range(0, len(stack), max(1, len(stack) // 6)):
        line = _clock_line(detector.detect(stack[i]))
        if line:
            tx0, ty0, tx1, ty1 = _text_bbox(line)
            region = _grow(Box(x0=tx0, y0=ty0, x1=tx1, y1=ty1), h, w, 12)
            found = _confirm(stack, edges[i], region, detector)  # frames like this one
            if found is not None:
                learned = _try_learn(path, sport, stack, found, engine, errors)
                if learned is not None:
                    return learned
    if errors:
        raise errors[0]
    raise NoScoreboardError(f"{path}: no on-screen scoreboard with a game clock found")


def _try_learn(
    path: Path,
    sport: str,
    stack: list[np.ndarray],
    found: tuple[Box, list[int]],
    engine: str,
    errors: list[NoScoreboardError],
) -> Located | None:
    """_learn, keeping its error so the next candidate region gets its chance."""
    try:
        return _learn(path, sport, stack, found, engine)
    except NoScoreboardError as e:
        errors.append(e)
        return None


def _iou(a: Box, b: Box) -> float:
    iw = max(0, min(a.x1, b.x1) - max(a.x0, b.x0))
    ih = max(0, min(a.y1, b.y1) - max(a.y0, b.y0))
    inter = iw * ih
    return inter / max(1, a.width * a.height + b.width * b.height - inter)


def _confirm(
    stack: list[np.ndarray], persistent: np.ndarray, region: Box, detector: Any
) -> tuple[Box, list[int]] | None:
    """(scoreboard box, indices of frames showing it) when OCR finds a clock in the region.
    The frames showing it are those with most of the `persistent` edges in the region."""
    sl = (slice(region.y0, region.y1), slice(region.x0, region.x1))
    pmask = persistent[sl]
    if pmask.sum() < 20:
        return None
    present = [i for i, f in enumerate(stack) if _edges(f[sl])[pmask].mean() > 0.5]
    if len(present) < 2:
        return None
    tmpl = np.median(np.stack([stack[i][sl] for i in present]), axis=0).astype(np.uint8)
    picks = [
        present[k]
        for k in np.linspace(0, len(present) - 1, min(3, len(present))).round().astype(int)
    ]
    hits = 0
    text_box: tuple[int, int, int, int] | None = None
    for i in dict.fromkeys(picks):
        line = _clock_line(detector.detect(np.ascontiguousarray(stack[i][sl])))
        if line:
            hits += 1
            tb = _text_bbox(line)
            text_box = (
                tb
                if text_box is None
                else (
                    min(text_box[0], tb[0]),
                    min(text_box[1], tb[1]),
                    max(text_box[2], tb[2]),
                    max(text_box[3], tb[3]),
                )
            )
    if hits < max(1, len(dict.fromkeys(picks)) - 1) or text_box is None:
        return None
    x0, y0, x1, y1 = _dark_box(tmpl, text_box)
    box = Box(x0=region.x0 + x0, y0=region.y0 + y0, x1=region.x0 + x1, y1=region.y0 + y1)
    return box, present


def _learn(
    path: Path, sport: str, stack: list[np.ndarray], found: tuple[Box, list[int]], engine: str
) -> Located:
    """Template, text rows, ink threshold, word gap and field order of a confirmed box."""
    box, present = found
    sl = (slice(box.y0, box.y1), slice(box.x0, box.x1))
    crops = np.stack([stack[i][sl] for i in present]).astype(np.int16)
    tmpl = np.median(crops, axis=0)
    # frames that really show the box: close to the median on most pixels
    close = (np.abs(crops - tmpl) < 24).mean(axis=(1, 2))
    keep = close > 0.8
    if keep.sum() >= 2:
        crops = crops[keep]
        tmpl = np.median(crops, axis=0)
    bg = float(np.median(tmpl))
    hi, lo = float(np.percentile(crops, 99.5)), float(np.percentile(crops, 0.5))
    polarity = 1 if hi - bg >= bg - lo else -1
    text_level = hi if polarity > 0 else lo
    threshold = round((bg + text_level) / 2)
    inked = ink_mask(crops, threshold, polarity)
    # text rows: where pixels change between frames (the clock always does), else where ink is
    varying = (np.abs(crops - tmpl) > 40).mean(axis=0) > 0.05
    rows = np.flatnonzero(varying.any(axis=1))
    if rows.size == 0:
        rows = np.flatnonzero(inked.any(axis=(0, 2)))
    if rows.size == 0:
        raise NoScoreboardError(f"{path}: scoreboard box found but no text in it")
    pad = max(1, (int(rows[-1]) - int(rows[0])) // 6)
    r0, r1 = max(0, int(rows[0]) - pad), min(box.height, int(rows[-1]) + 1 + pad)
    # decoration (team colour tabs, rules): ink that also reaches outside the text rows
    tmpl_ink = ink_mask(tmpl, threshold, polarity)
    outside = tmpl_ink.copy()
    outside[r0:r1] = False
    deco = np.asarray(outside.any(axis=0), dtype=bool)
    # static pixels: outside the text rows and stable over the frames that show the box
    stable = (np.abs(crops - tmpl) < 24).mean(axis=0) > 0.9
    static = stable.copy()
    static[r0:r1] = False
    if static.sum() < 0.05 * static.size:  # text fills the box: fall back to stable pixels
        static = stable & ~inked.any(axis=0)
    text_h = r1 - r0
    rec = get_engine(engine)
    best: tuple[list[FieldName], list[str], int] | None = None
    for i in np.linspace(0, len(crops) - 1, min(5, len(crops))).round().astype(int):
        crop = crops[i].astype(np.uint8)
        ink = ink_mask(crop[r0:r1], threshold, polarity) & ~deco
        for frac in (0.3, 0.22, 0.4, 0.5):
            gap = max(2, round(frac * text_h))
            spans = words(ink, gap, expect=_FIELDS)
            if len(spans) != _FIELDS:
                continue
            texts = rec.recognize([crop[r0:r1, a:b] for a, b in spans])
            order = _order(sport, texts)
            if order is not None:
                best = (order, texts, gap)
                break
        if best is not None:
            break
    if best is None:
        raise NoScoreboardError(
            f"{path}: scoreboard found at {box.x0},{box.y0} but its fields (codes, scores, "
            "period, clock) could not be read"
        )
    order, texts, gap = best
    codes = [read_code(t) or "" for f, t in zip(order, texts, strict=True) if f.endswith("code")]
    layout = ScoreboardLayout(
        box=box,
        text_rows=(r0, r1),
        order=order,
        home_code=codes[0],
        away_code=codes[1],
        ink_threshold=threshold,
        background=bg,
        sample_text="  ".join(texts),
    )
    return Located(layout, tmpl.astype(np.uint8), static, gap, polarity, deco)


def _order(sport: str, texts: list[str]) -> list[FieldName] | None:
    """Field of each word: the clock, the period, two codes, two scores (each score belongs to
    the code next to it, home first). None unless exactly that set is present."""
    kinds = [classify(sport, t) for t in texts]
    if sorted(k or "" for k in kinds) != ["clock", "code", "code", "period", "score", "score"]:
        return None
    code_idx = [i for i, k in enumerate(kinds) if k == "code"]
    out: list[FieldName] = []
    for i, k in enumerate(kinds):
        if k == "clock":
            out.append("clock")
        elif k == "period":
            out.append("period")
        elif k == "code":
            out.append("home_code" if i == code_idx[0] else "away_code")
        else:
            near = min(code_idx, key=lambda c: (abs(c - i), c > i))
            out.append("home_score" if near == code_idx[0] else "away_score")
    if sorted(out) != sorted(
        ["clock", "period", "home_code", "away_code", "home_score", "away_score"]
    ):
        return None
    return out
