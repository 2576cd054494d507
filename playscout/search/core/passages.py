"""Split documents into passages: consecutive lines up to ~64 words, in original order, with
character offsets into the document text (so highlights and full text come from one source and
a document can always be rebuilt in order, unlike the reference's sentence nodes). Both index
builders split with it, so both backends rank the same passages."""

from __future__ import annotations

import re

MAX_WORDS = 64
_WORD = re.compile(r"\S+")


def split_passages(text: str, max_words: int = MAX_WORDS) -> list[tuple[int, int]]:
    """[(start, end)) character spans covering every non-blank line of `text` in order.

    Lines are packed greedily; a single line longer than `max_words` is cut at word boundaries.
    """
    spans: list[tuple[int, int]] = []
    cur_start = cur_end = -1
    cur_words = 0

    def flush() -> None:
        nonlocal cur_start, cur_end, cur_words
        if cur_start >= 0:
            spans.append((cur_start, cur_end))
        cur_start, cur_end, cur_words = -1, -1, 0

    pos = 0
    for line in text.splitlines(keepends=True):
        words = [(m.start() + pos, m.end() + pos) for m in _WORD.finditer(line)]
        pos += len(line)
        if not words:
            continue
        if len(words) > max_words:
            flush()
            for i in range(0, len(words), max_words):
                chunk = words[i : i + max_words]
                spans.append((chunk[0][0], chunk[-1][1]))
            continue
        if cur_words + len(words) > max_words:
            flush()
        if cur_start < 0:
            cur_start = words[0][0]
        cur_end = words[-1][1]
        cur_words += len(words)
    flush()
    return spans
