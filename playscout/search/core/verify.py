"""What `index verify` reports, whichever backend it checked: each bad part by name with the
reason, and how much was read. Embedded indices check every file's checksum
(search/embedded/integrity.py); Elasticsearch compares per-sport counts with its manifest
(search/elastic/verify.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

# (what, done, total): bytes read so far for an embedded index, sports for Elasticsearch.
VerifyProgress = Callable[[str, int, int | None], None]


@dataclass(frozen=True)
class BadPart:
    """A file of an embedded index, or a sport's index under an Elasticsearch alias."""

    name: str
    reason: str

    def __str__(self) -> str:
        return f"{self.name}: {self.reason}"


@dataclass
class VerifyReport:
    target: str
    checked: int = 0  # files (embedded) or counts (Elasticsearch) compared
    bytes_read: int = 0
    seconds: float = 0.0
    bad: list[BadPart] = field(default_factory=list)
    unrecorded: list[str] = field(default_factory=list)  # files the manifest does not list

    @property
    def ok(self) -> bool:
        return not self.bad
