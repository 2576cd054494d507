"""The embedded backend's registry entry: an index directory (any target without a URL
scheme), opened memory-mapped, built atomically under the output's lock, verified file by
file."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from playscout.embed import Embedder
from playscout.search.backend_api import SearchBackend
from playscout.search.core.build import SportSource
from playscout.search.core.verify import VerifyProgress, VerifyReport
from playscout.search.kind import BackendKind, BuildOptions

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def _recognises(target: str) -> bool:
    return not _SCHEME.match(target)


def _manifest(target: str) -> Mapping[str, Any]:
    from playscout.search.embedded.layout import read_manifest

    return read_manifest(Path(target))


def _open(target: str, embedders: Mapping[str, Embedder], ann_probe: int | None) -> SearchBackend:
    from playscout.search.embedded import open_index

    backend = open_index(target, embedders)
    backend.ann_probe = ann_probe
    return backend


def _claim(target: str, overwrite: bool) -> Any:
    from playscout.search.embedded.build import claim_output

    return claim_output(Path(target), overwrite)


def _build(target: str, sources: Iterable[SportSource], o: BuildOptions) -> Any:
    from playscout.search.embedded.build import build_index

    embedders = (o.doc_embedder, o.caption_embedder, o.visual_vectors)
    return build_index(
        Path(target),
        sources,
        *embedders,
        o.progress,
        o.overwrite,
        lock=o.claim,
        ann=o.ann,
        units=o.units,
        identities=o.identities,
        workers=o.workers,
    )


def _verify(target: str, progress: VerifyProgress | None) -> VerifyReport:
    from playscout.search.embedded.integrity import verify_embedded

    return verify_embedded(Path(target), progress)


EMBEDDED = BackendKind(
    name="embedded",
    describes="an index directory",
    recognises=_recognises,
    present=lambda target: Path(target).exists(),
    manifest=_manifest,
    open=_open,
    build=_build,
    verify=_verify,
    claim=_claim,
    ann_probe=True,
)
