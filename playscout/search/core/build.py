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
from playscout.embed.release import identity
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
    # The same clips in runs that a worker process can read itself: picklable callables, each
    # yielding one run (a few games), whose concatenation is `clips`; None = `clips` only.
    clip_shards: Sequence[Callable[[], Iterable[ClipRecord]]] | None = None


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


# Embedder kinds whose model playscout runs itself: the spec names what made the vectors.
_RUN_HERE = frozenset({"minilm", "bge-m3", "open_clip"})


def identity_of(source: Any) -> dict[str, Any]:
    """What made a source's vectors, as far as the source itself can say (embed/release.py's
    identity): a model playscout ran is `built`; a served model (kind openai) or vectors with
    an embedder.json are `declared` by a name nobody checked; bare vectors are `unknown`."""
    own = getattr(source, "identity", None)
    if isinstance(own, dict):
        return dict(own)
    spec = spec_of(source)
    if spec.get("kind") in _RUN_HERE:
        return identity(str(spec["kind"]), "built", spec_model=spec.get("model"))
    if spec.get("kind") == "precomputed":
        return identity(None, "unknown", why="vectors without a record of their model")
    return identity(str(spec.get("model")), "declared", by=f"{spec.get('kind')} model name")


def channel_entry(
    source: Any,
    dim: int | None,
    known: dict[str, Any] | None = None,
    units: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A vector channel as the manifest records it: the spec the vectors were made with (query
    embedders are checked against it at open), their dimension, what made them (`identity`:
    `known` when the caller knows, e.g. from the release layout, else identity_of) and the text
    units embedded (search/core/units.py), and, when known, the device and dtype that made
    them (`made_on`, e.g. cuda:0 float16)."""
    where = made_on(source)
    entry = {
        "spec": spec_of(source),
        "dim": dim,
        "identity": dict(known) if known is not None else identity_of(source),
        **({"units": units} if units else {}),
    }
    return {**entry, **({"made_on": where} if where else {}), **extra}


def check_schema_version(manifest: dict[str, Any], reads: int, where: str) -> dict[str, Any]:
    """The manifest, if this code reads its schema version; else a one-line IndexOpenError."""
    version = manifest.get("schema_version")
    if version != reads:
        raise IndexOpenError(
            f"index at {where} has schema version {version}, this code reads {reads}: rebuild it"
        )
    return manifest
