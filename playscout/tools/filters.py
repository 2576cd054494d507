"""Turns the loose filter values a model writes into exact backend filters, with notes.

Follows the reference's rules (docs/reference.md §2.4): doc_type families, the
doc types each filter applies to, inclusive date ranges, temporal-boundary overlap. Where the
reference silently drops or guesses, these functions raise ToolError or return a note.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence

from playscout.corpus.models import DOC_TYPE_FAMILIES, DOC_TYPES, season_code_to_year
from playscout.tools.entities import EntityResolver
from playscout.tools.tool import ToolError

# Which doc types carry each metadata filter (reference FILTER_SUPPORTED_DOC_TYPES).
FILTER_DOC_TYPES: dict[str, tuple[str, ...]] = {
    "players": ("game_stat_player", "season_stat_player"),
    "season": ("game_stat_player", "game_stat_team", "season_stat_player", "season_stat_team"),
    "date": ("game_stat_player", "game_stat_team"),
}

_FULL_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_MONTH_DAY = re.compile(r"^\d{2}-\d{2}$")
_BOUNDARY = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*-\s*(\d+(?:\.\d+)?)\s*$")


def expand_doc_types(doc_type: str | Sequence[str] | None) -> list[str] | None:
    if doc_type is None or doc_type == "" or doc_type == []:
        return None
    names = [doc_type] if isinstance(doc_type, str) else list(doc_type)
    out: list[str] = []
    for name in names:
        key = name.strip().lower()
        expanded = DOC_TYPE_FAMILIES.get(key, (key,) if key in DOC_TYPES else ())
        if not expanded:
            known = ", ".join([*DOC_TYPES, *DOC_TYPE_FAMILIES])
            raise ToolError(f"unknown doc_type {name!r}; use one of: {known}")
        out.extend(t for t in expanded if t not in out)
    return out


def restrict_doc_types(
    doc_types: list[str] | None, present: Sequence[str]
) -> tuple[list[str] | None, set[str], list[str]]:
    """Apply each present filter's doc-type rule. Returns (doc types, dropped filters, notes)."""
    notes: list[str] = []
    dropped: set[str] = set()
    for name in present:
        allowed = FILTER_DOC_TYPES[name]
        if doc_types is None:
            doc_types = list(allowed)
            notes.append(f"{name} filter applies only to {', '.join(allowed)}; searching those")
            continue
        kept = [t for t in doc_types if t in allowed]
        if not kept:
            dropped.add(name)
            notes.append(
                f"{name} filter ignored: it applies to {', '.join(allowed)}, not {', '.join(doc_types)}"
            )
        elif len(kept) < len(doc_types):
            notes.append(f"{name} filter narrows doc types to {', '.join(kept)}")
            doc_types = kept
    return doc_types, dropped, notes


def parse_season(value: int | str | None) -> int | None:
    """2019, '2019', '18-19' or '2018-19' -> 2019 (the year the season ends)."""
    if value is None or value == "":
        return None
    if isinstance(value, int):
        return value
    text = value.strip()
    m = re.match(r"^(\d{4})-(\d{2}|\d{4})$", text)
    if m:
        end = m.group(2)
        return int(end) if len(end) == 4 else int(m.group(1)[:2] + end)
    try:
        return season_code_to_year(text)
    except ValueError:
        raise ToolError(
            f"season {value!r} is not a year like 2019 or a code like '2018-19'"
        ) from None


def _date_side(text: str, season: int | None, original: str) -> str | None:
    text = text.strip()
    if not text:
        return None
    if _MONTH_DAY.match(text):
        if season is None:
            raise ToolError(f"date {original!r} has no year: add season=YYYY or write YYYY-MM-DD")
        # Seasons run from autumn to spring: months from July belong to the first calendar year.
        year = season - 1 if int(text[:2]) >= 7 else season
        text = f"{year}-{text}"
    if not _FULL_DATE.match(text):
        raise ToolError(f"date {original!r} is not YYYY-MM-DD, A..B, A.. or ..B")
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        raise ToolError(f"date {original!r} is not a real calendar date") from None
    return text


def parse_date(value: str | None, season: int | None) -> tuple[str | None, str | None]:
    """'YYYY-MM-DD' (one day) or an inclusive range 'A..B', 'A..', '..B'; sides may be MM-DD
    when a season gives the year."""
    if not value:
        return None, None
    if ".." in value:
        left, _, right = value.partition("..")
        start, end = _date_side(left, season, value), _date_side(right, season, value)
        if start is None and end is None:
            raise ToolError(f"date {value!r} has no bounds")
        if start and end and start > end:
            raise ToolError(f"date range {value!r} ends before it starts")
        return start, end
    day = _date_side(value, season, value)
    return day, day


def parse_boundary(value: str | None) -> tuple[float | None, float | None]:
    """'100.5-120.0' seconds of the game video -> (start, end)."""
    if not value:
        return None, None
    m = _BOUNDARY.match(value)
    if not m:
        raise ToolError(
            f"temporal_boundary {value!r} is not 'START-END' in seconds, e.g. '100.5-120.0'"
        )
    start, end = float(m.group(1)), float(m.group(2))
    if end <= start:
        raise ToolError(f"temporal_boundary {value!r} ends before it starts")
    return start, end


def resolve_names(
    resolver: EntityResolver, kind: str, names: Sequence[str] | None
) -> tuple[list[str] | None, list[str], list[str]]:
    """-> (canonical names or None, unresolved inputs, notes)."""
    if not names:
        return None, [], []
    found = resolver.teams(names) if kind == "team" else resolver.players(names)
    matches = list(dict.fromkeys(m for r in found for m in r.matches))
    notes = [n for r in found if (n := r.note())]
    unresolved = [r.name for r in found if not r.resolved]
    return (matches or None), unresolved, notes
