"""The sports playscout knows: one `SportRecord` each, looked up by name.

A built-in sport is one module of this package that defines `RECORD`; it is found by scanning
the package, so adding one edits no list. Code outside the package (a plugin, a test) adds a
sport with `register_sport(record)`. `sport(name)` is the one lookup every layer uses: an
unknown name fails there, in one line naming the known sports, never with another sport's
facts or a default.
"""

from __future__ import annotations

import importlib
import pkgutil
import re

from playscout.errors import PlayscoutError

from .record import Board, Coverage, SportRecord


class UnknownSport(PlayscoutError, ValueError):
    """A sport name no record is registered for."""


_RECORDS: dict[str, SportRecord] = {}


def register_sport(record: SportRecord) -> SportRecord:
    """Add a sport; registering another record under a taken name is an error."""
    if not re.fullmatch(r"[a-z][a-z0-9_]*", record.name):
        raise ValueError(f"sport name {record.name!r} must be lower-case letters, digits, '_'")
    known = _RECORDS.get(record.name)
    if known is not None and known is not record:
        raise ValueError(f"sport {record.name!r} is already registered")
    _RECORDS[record.name] = record
    return record


def unregister_sport(name: str) -> None:
    """Remove a sport registered with `register_sport` (tests)."""
    _RECORDS.pop(name, None)


def sport(name: str) -> SportRecord:
    """The record of a sport; UnknownSport (one line, the known names) when there is none."""
    try:
        return _RECORDS[name]
    except KeyError:
        raise UnknownSport(f"unknown sport {name!r}; known: {', '.join(sport_names())}") from None


def sport_names() -> tuple[str, ...]:
    """Every registered sport, in name order."""
    return tuple(sorted(_RECORDS))


def is_sport(name: str) -> bool:
    return name in _RECORDS


def sport_of_league(league: str) -> str | None:
    """The sport whose record lists this league name (exact match); None when none does."""
    for name in sport_names():
        if league in _RECORDS[name].leagues:
            return name
    return None


def period_words() -> dict[str, str]:
    """Each sport's word for a period ({'basketball': 'quarter', ...}), for text that names
    them all (tool descriptions)."""
    return {name: _RECORDS[name].period_word for name in sport_names()}


def periods_phrase() -> str:
    """'quarter (basketball), period (hockey) or half (soccer)': every sport's period word."""
    parts = [f"{word} ({name})" for name, word in period_words().items()]
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} or {parts[-1]}"


def _load_builtin() -> None:
    for info in pkgutil.iter_modules(__path__):
        if info.name == "record":
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        record = getattr(module, "RECORD", None)
        if not isinstance(record, SportRecord) or record.name != info.name:
            raise ImportError(
                f"{module.__name__} must define RECORD, a SportRecord named {info.name!r}"
            )
        register_sport(record)


_load_builtin()

__all__ = [
    "Board",
    "Coverage",
    "SportRecord",
    "UnknownSport",
    "is_sport",
    "period_words",
    "periods_phrase",
    "register_sport",
    "sport",
    "sport_names",
    "sport_of_league",
    "unregister_sport",
]
