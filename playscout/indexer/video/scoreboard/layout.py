"""Word segmentation of the scoreboard text line and parsing of its fields.

Shared by the locator (which learns which word is which field) and the reader (which re-cuts
the words every changed frame, because a score going from 99 to 100 shifts everything after it).
"""

from __future__ import annotations

import re

import numpy as np

from playscout.corpus.match_state import (
    board,
    parse_clock,
    parse_period,
    period_label,
)
from playscout.indexer.video.scoreboard.text import as_digits, as_letters, clean

_CLOCK_TEXT = re.compile(r"(\d{1,3}):?([0-5]\d)$")


def ink_mask(rows: np.ndarray, threshold: int, polarity: int) -> np.ndarray:
    """Text pixels of a crop: brighter (polarity 1) or darker (-1) than the threshold."""
    return rows > threshold if polarity > 0 else rows < threshold


def words(ink: np.ndarray, min_gap: int, expect: int | None = None) -> list[tuple[int, int]]:
    """Column spans (x0, x1 exclusive) of the words of a one-line ink mask: runs of inked
    columns separated by more than `min_gap` empty columns. With `expect`, the narrowest gaps
    are closed until that many words remain: glyph gaps vary with the digits shown (a colon
    after a 9 sits further off than after a 0) while gaps between fields stay wider."""
    cols = ink.any(axis=0)
    if not cols.any():
        return []
    idx = np.flatnonzero(cols)
    steps = np.diff(idx)
    breaks = np.flatnonzero(steps > min_gap)
    if expect is not None and len(breaks) >= expect:
        keep = np.sort(breaks[np.argsort(-steps[breaks], kind="stable")[: expect - 1]])
        breaks = keep
    starts = np.concatenate([[idx[0]], idx[breaks + 1]])
    ends = np.concatenate([idx[breaks], [idx[-1]]]) + 1
    return list(zip(starts.tolist(), ends.tolist(), strict=True))


def read_clock(text: str) -> int | None:
    """Displayed clock from OCR text: tolerates a lost or doubled colon and stray punctuation."""
    t = clean(text)
    if ":" in t:
        head, _, tail = t.rpartition(":")
        t = as_digits(head.replace(":", "")) + ":" + as_digits(tail)
    else:
        t = as_digits(t)
    m = _CLOCK_TEXT.match(t) or _CLOCK_TEXT.match(t[-5:])
    if not m:
        return None
    return parse_clock(f"{int(m.group(1)):02d}:{m.group(2)}")


def normalise(field: str, text: str) -> str:
    """OCR text with each character as the field can hold it (digits in scores and the clock,
    letters in codes), so one glyph always gets one character."""
    t = clean(text)
    if field.endswith("score"):
        return as_digits(t)
    if field == "clock":
        return ":".join(as_digits(part) for part in t.split(":"))
    if field.endswith("code"):
        return as_letters(t)
    return t


def read_score(text: str) -> int | None:
    d = as_digits(text)
    return int(d) if d.isdigit() and len(d) <= 3 else None


# pairs a recogniser confuses in this font: digit-shaped letters and letter-shaped digits
_CONFUSABLE = {frozenset(p) for p in ("0O", "0Q", "0D", "OQ", "OD", "1I", "5S", "2Z", "8B", "6G")}


def read_period(sport: str, text: str) -> int | None:
    """Period label with OCR slack: the exact label, else the one label that differs only by
    confusable characters (0T -> OT, 01 -> Q1; never 41 -> Q1)."""
    t = clean(text)
    p = parse_period(sport, t)
    if p is not None:
        return p
    near = [
        q
        for q in range(1, board(sport).regulation_periods + 5)
        if _close(period_label(sport, q), t)
    ]
    return near[0] if len(near) == 1 else None


def _close(label: str, text: str) -> bool:
    return len(label) == len(text) and all(
        a == b or frozenset((a, b)) in _CONFUSABLE for a, b in zip(label, text, strict=True)
    )


def read_code(text: str) -> str | None:
    t = as_letters(text)
    return t if t.isalpha() and 2 <= len(t) <= 4 else None


def classify(sport: str, text: str) -> str | None:
    """Which field a word's text looks like (used once per video, on clean locator frames)."""
    t = clean(text)
    if re.fullmatch(r"\d{1,3}:[0-5]\d", t):
        return "clock"
    if read_period(sport, t) is not None:
        return "period"
    if re.fullmatch(r"\d{1,3}", t) or (len(t) == 1 and as_digits(t).isdigit()):
        return "score"  # a lone "0" often comes back as the letter O
    if re.fullmatch(r"[A-Z]{2,4}", t):
        return "code"
    return None
