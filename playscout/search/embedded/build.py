"""Build an embedded search index from per-sport record streams.

The index is written into a temp directory next to `out_dir` and renamed into place only when
everything succeeded, so a failed build never leaves a half-written index where a reader looks,
and an existing index is replaced (atomically, via a rename) only with overwrite=True.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from playscout.search.core.build import (
    IndexExistsError,
    Progress,
    SportSource,
    VisualVectorSource,
    channel_entry,
    check_new_sport,
)
from playscout.search.core.spec import DocumentEmbedder
from playscout.search.embedded.backend import EmbeddedBackend, open_index
from playscout.search.embedded.columns import Vocab
from playscout.search.embedded.layout import (
    FORMAT,
    MANIFEST,
    SCHEMA_VERSION,
    package_versions,
)
from playscout.search.embedded.recall import AnnOptions
from playscout.search.embedded.writers import ClipWriter, DocWriter, write_entities

__all__ = [
    "AnnOptions",
    "BuildSummary",
    "EmbeddedBackend",
    "IndexExistsError",
    "Progress",
    "SportSource",
    "VisualVectorSource",
    "build_index",
    "open_index",
]


@dataclass
class BuildSummary:
    path: Path
    seconds: float
    sports: dict[str, dict[str, Any]] = field(default_factory=dict)
    size_bytes: int = 0


def _dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def build_index(
    out_dir: Path,
    sources: Iterable[SportSource],
    doc_embedder: DocumentEmbedder | None,
    caption_embedder: DocumentEmbedder | None,
    visual_vectors: VisualVectorSource | None = None,
    progress: Progress | None = None,
    overwrite: bool = False,
    ann: AnnOptions | None = None,
) -> BuildSummary:
    """`ann`: how each vector channel chooses and measures its search setting (recall.py)."""
    out_dir = Path(out_dir)
    if out_dir.exists() and not overwrite:
        raise IndexExistsError(f"{out_dir} exists; pass overwrite=True to replace it")
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    tmp = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.building-", dir=out_dir.parent))
    try:
        sports = _build_into(
            tmp, sources, doc_embedder, caption_embedder, visual_vectors, progress, ann
        )
        seconds = time.perf_counter() - started
        manifest = {
            "format": FORMAT,
            "schema_version": SCHEMA_VERSION,
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
            "build_seconds": round(seconds, 3),
            "packages": package_versions(),
            "sports": sports,
        }
        (tmp / MANIFEST).write_text(json.dumps(manifest, indent=2))
        _swap_into_place(tmp, out_dir)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return BuildSummary(out_dir, seconds, sports, _dir_size(out_dir))


def _swap_into_place(tmp: Path, out_dir: Path) -> None:
    """rename() is atomic; an old index is first moved aside, then removed after the swap."""
    if not out_dir.exists():
        os.rename(tmp, out_dir)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.old-", dir=out_dir.parent))
    os.rename(out_dir, old / "index")
    try:
        os.rename(tmp, out_dir)
    except BaseException:
        os.rename(old / "index", out_dir)
        raise
    shutil.rmtree(old, ignore_errors=True)


def _build_into(
    root: Path,
    sources: Iterable[SportSource],
    doc_embedder: DocumentEmbedder | None,
    caption_embedder: DocumentEmbedder | None,
    visual: VisualVectorSource | None,
    progress: Progress | None,
    ann_options: AnnOptions | None,
) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for source in sources:
        sport = source.sport
        check_new_sport(sport, out)
        t0 = time.perf_counter()
        sroot = root / sport
        teams, players = Vocab(), Vocab()
        dw = DocWriter(sroot / "docs", sport, teams, players, doc_embedder, progress, ann_options)
        for doc in source.documents:
            dw.add(doc)
        docs_info = dw.finish()
        cw = ClipWriter(
            sroot / "clips", sport, teams, players, caption_embedder, visual, progress, ann_options
        )
        for clip in source.clips:
            cw.add(clip)
        clips_info = cw.finish()
        write_entities(sroot, teams, players)
        channels: dict[str, Any] = {}
        if doc_embedder is not None:
            ann = docs_info.pop("dense_ann", None)
            channels["documents"] = channel_entry(doc_embedder, doc_embedder.dim, ann=ann)
        if caption_embedder is not None:
            ann = clips_info.pop("caption_ann", None)
            channels["caption"] = channel_entry(caption_embedder, caption_embedder.dim, ann=ann)
        if visual is not None:
            dim = int(np.load(sroot / "clips/visual/dense/vectors.npy", mmap_mode="r").shape[1])
            channels["visual"] = channel_entry(visual, dim, ann=clips_info.pop("visual_ann", None))
        out[sport] = {
            **docs_info,
            **clips_info,
            "teams": len(teams.items),
            "players": len(players.items),
            "channels": channels,
            "build_seconds": round(time.perf_counter() - t0, 3),
        }
    return out
