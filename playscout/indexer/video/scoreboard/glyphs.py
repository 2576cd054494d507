"""A per-video glyph bank that answers most field reads without the recogniser.

A scoreboard draws every character in one font at a fixed size, so once the recogniser has read
a word whose glyphs separate cleanly (one ink column run per character), each glyph crop is
remembered with its character. A later word whose glyphs all match remembered ones closely
(nearest neighbour, with a margin over the nearest *other* character) is read from the bank.
Anything doubtful goes to the recogniser, which also keeps the bank growing. On a full game the
clock's ~3000 distinct values then cost a few dozen OCR calls instead of thousands.
"""

from __future__ import annotations

import numpy as np

MAX_PER_KEY = 6  # remembered variants per (width, character)


def glyph_spans(ink: np.ndarray) -> list[tuple[int, int]]:
    """Column runs of ink: one per glyph when the glyphs do not touch."""
    cols = ink.any(axis=0)
    if not cols.any():
        return []
    edges = np.diff(np.concatenate([[0], cols.astype(np.int8), [0]]))
    starts = np.flatnonzero(edges == 1)
    ends = np.flatnonzero(edges == -1)
    return list(zip(starts.tolist(), ends.tolist(), strict=True))


class _Entry:
    __slots__ = ("char", "count", "ref")

    def __init__(self, ref: np.ndarray, char: str) -> None:
        self.ref = ref
        self.char = char
        self.count = 1  # agreeing OCR reads; < 0 once another read contradicted it


class GlyphBank:
    """Glyph crops with their characters, trusted once two OCR reads agree and none disagrees
    (a single misread must not teach the bank a wrong digit for the rest of the video)."""

    def __init__(self, contrast: float) -> None:
        self.tol = 0.07 * contrast  # mean absolute luma difference for a match
        self.bank: dict[int, list[_Entry]] = {}
        self.hits = 0
        self.misses = 0

    def read(self, word: np.ndarray, ink: np.ndarray) -> str | None:
        """The word's text when every glyph matches the bank unambiguously, else None."""
        spans = glyph_spans(ink)
        if not spans:
            return None
        out = []
        for a, b in spans:
            ch = self._match(word[:, a:b].astype(np.float32))
            if ch is None:
                self.misses += 1
                return None
            out.append(ch)
        self.hits += 1
        return "".join(out)

    def _nearest(self, g: np.ndarray, trusted: bool) -> list[tuple[float, _Entry]]:
        out = []
        for e in self.bank.get(g.shape[1], []):
            if trusted and e.count < 2:
                continue
            out.append((float(np.abs(g - e.ref).mean()), e))
        out.sort(key=lambda de: de[0])
        return out

    def _match(self, g: np.ndarray) -> str | None:
        ranked = self._nearest(g, trusted=True)
        if not ranked or ranked[0][0] > self.tol:
            return None
        d, best = ranked[0]
        other = next((dd for dd, e in ranked[1:] if e.char != best.char), None)
        if other is not None and other < 3 * d + self.tol:
            return None
        return best.char

    def learn(self, word: np.ndarray, ink: np.ndarray, text: str) -> None:
        """Count the glyphs of an OCR'd word when its glyph count equals its text length."""
        chars = [c for c in text if not c.isspace()]
        spans = glyph_spans(ink)
        if not chars or len(spans) != len(chars):
            return
        for (a, b), ch in zip(spans, chars, strict=True):
            g = word[:, a:b].astype(np.float32)
            near = [e for d, e in self._nearest(g, trusted=False) if d <= self.tol]
            if not near:
                entries = self.bank.setdefault(b - a, [])
                if sum(1 for e in entries if e.char == ch) < MAX_PER_KEY:
                    entries.append(_Entry(g, ch))
                continue
            for e in near:
                if e.char == ch:
                    e.count += 1 if e.count > 0 else 0
                else:
                    e.count = -1  # two reads disagree on this shape: never trust it
