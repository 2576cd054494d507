"""Highlights: matched passages in rank order, cut so that the joined text is ≤ 500 characters;
for clips in default mode, a short window of the observed text around the first query word.
Engine-independent, so a hit reads the same whichever backend found it."""

from __future__ import annotations

import re
from collections.abc import Iterable

from playscout.corpus.models import ClipRecord
from playscout.search.backend_api import HIGHLIGHT_MAX_CHARS, HIGHLIGHT_SEP

ELLIPSIS = " …"


def clip_highlights(parts: Iterable[str], limit: int = HIGHLIGHT_MAX_CHARS) -> list[str]:
    out: list[str] = []
    used = 0
    for part in parts:
        part = " ".join(part.split())
        if not part:
            continue
        room = limit - used - (len(HIGHLIGHT_SEP) if out else 0)
        if room <= len(ELLIPSIS) + 10:
            break
        if len(part) > room:
            out.append(part[: room - len(ELLIPSIS)].rstrip() + ELLIPSIS)
            break
        out.append(part)
        used += len(part) + (len(HIGHLIGHT_SEP) if len(out) > 1 else 0)
    return out


SNIPPET_CHARS = 160
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def text_snippet(text: str, query: str, limit: int = SNIPPET_CHARS) -> str:
    """About `limit` characters of `text` around the first query word it contains (the text's
    start when none does), cut at word boundaries, with … where it was cut."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    words = {w.lower() for w in _WORD.findall(query) if len(w) > 3} or {
        w.lower() for w in _WORD.findall(query)
    }
    at = next((m.start() for m in _WORD.finditer(text) if _stem_match(m.group().lower(), words)), 0)
    start = max(0, at - limit // 3)
    if start:
        start = text.find(" ", start) + 1 or start
    end = min(len(text), start + limit)
    if end < len(text):
        end = text.rfind(" ", start, end) if text.rfind(" ", start, end) > start else end
    return ("…" if start else "") + text[start:end].strip() + ("…" if end < len(text) else "")


def _stem_match(word: str, query_words: set[str]) -> bool:
    """A crude stem match (a shared prefix of the query word, up to 5 letters) so that "goals"
    finds "goal" and "scores" finds "scored", as BM25's stemmer does."""
    return any(word == q or _shared(word, q) >= max(4, min(len(q), 5)) for q in query_words)


def _shared(a: str, b: str) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def heard(record: ClipRecord, query: str) -> list[str]:
    """Default-mode highlight of a clip: a snippet of what was heard (never the caption)."""
    text = record.observed_text()
    return [text_snippet(text, query)] if text else []
