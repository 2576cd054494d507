"""Run, trajectory and session ids: a strict alphabet, so an id taken from a request can never
name a path outside its directory."""

from __future__ import annotations

import re

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$"
_ID_RE = re.compile(ID_PATTERN)


def valid_id(value: str) -> bool:
    return bool(_ID_RE.fullmatch(value))
