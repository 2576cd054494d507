"""Index and alias names. Readers only ever use aliases; a build writes versioned concrete
indices (`<alias>-<build_id>`) and swaps the aliases in one atomic `_aliases` call."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime

KINDS = ("docs", "passages", "clips")
_PREFIX = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")
_SPORT = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


def check_prefix(prefix: str) -> str:
    """ES index names are lowercase and forbid `\\ / * ? " < > | , # :` and spaces."""
    if not _PREFIX.match(prefix):
        raise ValueError(f"index prefix {prefix!r} must match {_PREFIX.pattern}")
    return prefix


def check_sport(sport: str) -> str:
    if not _SPORT.match(sport):
        raise ValueError(f"sport {sport!r} cannot be part of an index name ({_SPORT.pattern})")
    return sport


def new_build_id() -> str:
    stamp = datetime.now(UTC).strftime("%Y%m%d%H%M%S")
    return f"b{stamp}{secrets.token_hex(2)}"


@dataclass(frozen=True)
class Names:
    prefix: str

    def meta(self) -> str:
        return f"{self.prefix}-meta"

    def alias(self, sport: str, kind: str) -> str:
        return f"{self.prefix}-{sport}-{kind}"

    @staticmethod
    def versioned(alias: str, build_id: str) -> str:
        return f"{alias}-{build_id}"
