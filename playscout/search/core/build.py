"""What both index builders (embedded directory, Elasticsearch indices) take and record: the
per-sport sources, the progress callback, the manifest's channel entries and schema check,
and the build errors, so that a bad input fails with the same text whichever backend builds it.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Sequence
from typing import Any, NamedTuple, Protocol

import numpy as np

from playscout.corpus.models import ClipRecord, DocumentRecord
from playscout.embed.embedder import made_on
from playscout.errors import PlayscoutError
from playscout.search.backend_api import IndexOpenError
from playscout.search.core.spec import spec_of

# (what, done, total or None): e.g. ("basketball clips", 2048, None)
Progress = Callable[[str, int, int | None], None]
# Documents and games without a date sort after every dated one.
MISSING_DATE = "9999-99-99"


class SportSource(NamedTuple):
    """A sport's records; the totals, when known, let progress show a total and an ETA."""

    sport: str
    documents: Iterable[DocumentRecord]
    clips: Iterable[ClipRecord]
    documents_total: int | None = None
    clips_total: int | None = None


class VisualVectorSource(Protocol):
    """Precomputed video vectors (L2-normalised float32), one per clip id, in request order."""

    def spec(self) -> Any: ...

    def vectors_for(self, sport: str, clip_ids: Sequence[str]) -> np.ndarray: ...


class IndexExistsError(PlayscoutError, FileExistsError):
    """The target already holds an index and overwrite was not set. The message names the
    library's argument (`ARGUMENT`); a front end says its own word for it (`saying`)."""

    ARGUMENT = "overwrite=True"

    def saying(self, option: str) -> str:
        """The message with `option` (the CLI's `--overwrite`) in place of the argument."""
        return str(self).replace(self.ARGUMENT, option)


def check_new_sport(sport: str, seen: Container[str]) -> None:
    if sport in seen:
        raise ValueError(f"sport {sport!r} appears twice in the sources")


def check_record_sport(kind: str, record_id: str, got: str, sport: str) -> None:
    """`kind`: "document" or "clip"; a record filed under the wrong sport fails the build."""
    if got != sport:
        raise ValueError(f"{kind} {record_id} has sport {got!r}, not {sport!r}")


def duplicate_doc(doc_id: str, sport: str) -> ValueError:
    return ValueError(f"duplicate doc_id {doc_id!r} in sport {sport}")


def duplicate_clip(clip_id: str, sport: str) -> ValueError:
    return ValueError(f"duplicate clip id {clip_id} in sport {sport}")


def no_visual_vectors(sport: str) -> ValueError:
    return ValueError(f"no clips for sport {sport}: visual channel has no vectors")


def channel_entry(source: Any, dim: int | None, **extra: Any) -> dict[str, Any]:
    """A vector channel as the manifest records it: the spec the vectors were made with (query
    embedders are checked against it at open), their dimension and, when known, the device
    and dtype that made them (`made_on`, e.g. cuda:0 float16)."""
    where = made_on(source)
    return {"spec": spec_of(source), "dim": dim, **({"made_on": where} if where else {}), **extra}


def check_schema_version(manifest: dict[str, Any], reads: int, where: str) -> dict[str, Any]:
    """The manifest, if this code reads its schema version; else a one-line IndexOpenError."""
    version = manifest.get("schema_version")
    if version != reads:
        raise IndexOpenError(
            f"index at {where} has schema version {version}, this code reads {reads}: rebuild it"
        )
    return manifest
