"""`verify_index(target)`: the full integrity check of an index of any registered kind
(`playscout index verify`, `serve --verify`)."""

from __future__ import annotations

from pathlib import Path

from playscout.search.core.verify import VerifyProgress, VerifyReport
from playscout.search.kinds import AUTO, kind_for


def verify_index(
    target: Path | str, progress: VerifyProgress | None = None, backend: str = AUTO
) -> VerifyReport:
    """Every file's checksum (a directory) or every alias and count (Elasticsearch) against
    what the build recorded. An index that cannot be opened at all raises IndexOpenError."""
    return kind_for(target, backend).verify(str(target), progress)
