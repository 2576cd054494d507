"""What a search backend kind is: one entry (name, the targets it recognises, open, build,
verify) that every site reads through `playscout.search.kinds`, so a new backend is one
module and one line in that registry, never a branch in each caller."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from playscout.embed import Embedder, make_embedder
from playscout.embed.device import with_device
from playscout.search.backend_api import SearchBackend
from playscout.search.core.build import SportSource
from playscout.search.core.verify import VerifyProgress, VerifyReport

QueryEmbedders = Mapping[str, dict[str, Any] | Embedder]


@dataclass(frozen=True)
class BuildOptions:
    """Everything a build may use; each kind reads what applies to it (`ann` is the embedded
    index's recall-tuned ANN choice, `index_options` Elasticsearch's dense_vector type),
    `claim` is what the kind's `claim` returned (the embedded output lock), `units` the text
    units ranked and embedded, `identities` what made a channel's vectors when the builder's
    caller knows it better than the source (the release layout; see channel_entry)."""

    doc_embedder: Any = None
    caption_embedder: Any = None
    visual_vectors: Any = None
    progress: Any = None
    overwrite: bool = False
    ann: Any = None
    index_options: str = "int8_hnsw"
    claim: Any = None
    units: Any = None  # search/core/units.DocUnits; None = playscout's passages
    identities: Mapping[str, dict[str, Any]] | None = None  # channel -> what made its vectors
    workers: int | None = None  # processes that handle records (None: the kind decides)


def _nothing_to_claim(_target: str, _overwrite: bool) -> AbstractContextManager[Any]:
    return contextlib.nullcontext()


@dataclass(frozen=True)
class BackendKind:
    """One search backend kind. `recognises(target)` must be true for its targets only
    (kinds never overlap); `present(target)` says whether there may be an index to open (a
    server-backed kind answers True and lets `open` say what is missing); `manifest(target)`
    is what the build recorded (its channels' embedder specs); `open(target, embedders,
    ann_probe)` opens with exactly these query embedders (open_backend fills them from the
    manifest); `claim(target, overwrite)` is entered before a build loads its models, so a
    second build to the same target fails at once."""

    name: str
    describes: str  # what its targets look like, for one-line errors
    recognises: Callable[[str], bool]
    present: Callable[[str], bool]
    manifest: Callable[[str], Mapping[str, Any]]
    open: Callable[[str, Mapping[str, Embedder], int | None], SearchBackend]
    build: Callable[[str, Iterable[SportSource], BuildOptions], Any]
    verify: Callable[[str, VerifyProgress | None], VerifyReport]
    claim: Callable[[str, bool], AbstractContextManager[Any]] = _nothing_to_claim
    ann_probe: bool = (
        False  # whether SearchSettings.ann_probe applies (else setting it is an error)
    )


def recorded_specs(manifest: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Channel -> embedder spec as recorded at build time (the first sport that has it)."""
    specs: dict[str, dict[str, Any]] = {}
    for sport in manifest.get("sports", {}).values():
        for channel, info in sport.get("channels", {}).items():
            specs.setdefault(channel, info["spec"])
    return specs


def fill_embedders(
    manifest: Mapping[str, Any], given: QueryEmbedders, device: str | None = None
) -> dict[str, Embedder]:
    """The query embedder of each recorded channel: the one given, else the recorded spec, so a
    query is never embedded by another model than the one that made the vectors. Video vectors
    cannot embed a query: without a given text tower that channel gets none. `device`: where
    the embedders built from specs run (EmbedSettings.device; None = their auto)."""
    embedders: dict[str, Embedder] = {}
    for channel, spec in recorded_specs(manifest).items():
        chosen = given.get(channel)
        if chosen is None and spec.get("kind") == "precomputed":
            continue
        if isinstance(chosen, dict) and chosen.get("dim") is None:
            chosen = {**chosen, "dim": spec.get("dim")}  # known now: no probe at open
        if chosen is None or isinstance(chosen, dict):
            embedders[channel] = make_embedder(with_device(chosen or spec, device) or spec)
        else:
            embedders[channel] = chosen
    return embedders
