"""Highlights: matched passages in rank order, cut so that the joined text is ≤ 500 characters."""

from __future__ import annotations

from collections.abc import Iterable

from playscout.indexer.search.base import HIGHLIGHT_MAX_CHARS, HIGHLIGHT_SEP

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
