"""Run, trajectory and session ids: a strict alphabet, so an id taken from a request can never
name a path outside its directory. New ids are minted here too, so every id this service hands
out (agent runs, batch runs, API trajectories) has the same sortable shape and matches
ID_PATTERN by construction."""

from __future__ import annotations

import re
import time
import uuid

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$"
_ID_RE = re.compile(ID_PATTERN)


def valid_id(value: str) -> bool:
    return bool(_ID_RE.fullmatch(value))


def new_id(random_hex: int = 8) -> str:
    """`20260131T142501-1a2b3c4d`: local start time (ids sort by when they began, and a
    directory listing reads as a log) plus `random_hex` random hex digits against collisions
    within a second. Ids that a client can name (API trajectories) take more digits."""
    return time.strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:random_hex]
