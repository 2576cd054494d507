"""Build an embedded search index from per-sport record streams.

The index is written into a temp directory next to `out_dir` and renamed into place only when
everything succeeded, so a failed build never leaves a half-written index where a reader looks,
and an existing index is replaced (atomically, via a rename) only with overwrite=True.

A build holds the output's lock (playscout.storage.OutputLock) from start to commit: a second
build to the same output fails at once, naming the first one's pid. Its first act is to remove
what killed builds left beside the output. The manifest records every file's size and checksum
(integrity.py) and the commit never replaces an index that appeared meanwhile.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import json
import logging
import os
import shutil
import tempfile
import time
import traceback
from collections.abc import Iterable, Iterator, Mapping
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
from playscout.search.core.units import DocUnits
from playscout.search.embedded.backend import EmbeddedBackend, open_index
from playscout.search.embedded.columns import Vocab
from playscout.search.embedded.integrity import FILES_KEY, record_files, seal
from playscout.search.embedded.layout import (
    FORMAT,
    MANIFEST,
    SCHEMA_VERSION,
    package_versions,
)
from playscout.search.embedded.pipeline import (
    StageClock,
    handled_shards,
    on_cpu,
    record_pool,
    record_workers,
)
from playscout.search.embedded.recall import AnnOptions
from playscout.search.embedded.text import tantivy_path
from playscout.search.embedded.writers import ClipWriter, DocWriter, write_entities
from playscout.storage import (
    OutputLock,
    StorageError,
    Swept,
    exchange,
    rename_noreplace,
    tree_size,
    user_os_error,
)

log = logging.getLogger(__name__)
STAGING = "building"  # .NAME.building-XXXXXXXX: the index being written
RETIRED = "old"  # .NAME.old-XXXXXXXX: the replaced index, where an atomic exchange is unsupported

__all__ = [
    "AnnOptions",
    "BuildSummary",
    "EmbeddedBackend",
    "IndexExistsError",
    "Progress",
    "SportSource",
    "VisualVectorSource",
    "build_index",
    "claim_output",
    "open_index",
]


@dataclass
class BuildSummary:
    path: Path
    seconds: float
    sports: dict[str, dict[str, Any]] = field(default_factory=dict)
    size_bytes: int = 0
    swept: Swept = field(default_factory=Swept)  # what killed builds had left beside the output


def claim_output(out_dir: Path, overwrite: bool) -> OutputLock:
    """Take the output's lock and check the output may be written: before any slow work, so
    a second build fails at once. Release the lock (or use it as a context manager) when done."""
    tantivy_path(Path(out_dir))  # a name tantivy cannot take fails now, not after embedding
    lock = OutputLock(Path(out_dir), "index build").acquire()
    if Path(out_dir).exists() and not overwrite:
        lock.release()
        raise IndexExistsError(f"{out_dir} exists; pass {IndexExistsError.ARGUMENT} to replace it")
    return lock


def build_index(
    out_dir: Path,
    sources: Iterable[SportSource],
    doc_embedder: DocumentEmbedder | None,
    caption_embedder: DocumentEmbedder | None,
    visual_vectors: VisualVectorSource | None = None,
    progress: Progress | None = None,
    overwrite: bool = False,
    lock: OutputLock | None = None,
    ann: AnnOptions | None = None,
    units: DocUnits | None = None,
    identities: Mapping[str, dict[str, Any]] | None = None,
    workers: int | None = None,
) -> BuildSummary:
    """`lock`: the output's lock from claim_output, when the caller took it earlier. `ann`:
    how each vector channel chooses and measures its search setting (recall.py). `units`:
    the text units ranked and embedded (search/core/units.py); `identities`: what made each
    channel's vectors when the caller knows better than the source (the release layout).
    `workers`: processes that handle clip records (None: by the cores and where the
    embedders run)."""
    out_dir = Path(out_dir)
    with contextlib.ExitStack() as stack:
        if lock is None:
            lock = stack.enter_context(claim_output(out_dir, overwrite))
        restored = _restore_interrupted_swap(lock, out_dir)
        swept = lock.sweep(STAGING, RETIRED)
        if restored and not overwrite:
            raise IndexExistsError(
                f"{out_dir} exists; pass {IndexExistsError.ARGUMENT} to replace it"
            )
        summary = _build_locked(
            out_dir,
            sources,
            doc_embedder,
            caption_embedder,
            visual_vectors,
            progress,
            overwrite,
            ann,
            units,
            identities,
            workers,
        )
    summary.swept = swept
    return summary


def _build_locked(
    out_dir: Path,
    sources: Iterable[SportSource],
    doc_embedder: DocumentEmbedder | None,
    caption_embedder: DocumentEmbedder | None,
    visual_vectors: VisualVectorSource | None,
    progress: Progress | None,
    overwrite: bool,
    ann: AnnOptions | None,
    units: DocUnits | None = None,
    identities: Mapping[str, dict[str, Any]] | None = None,
    workers: int | None = None,
) -> BuildSummary:
    started = time.perf_counter()
    tmp = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.{STAGING}-", dir=out_dir.parent))
    try:
        sports = _build_into(
            tmp,
            sources,
            doc_embedder,
            caption_embedder,
            visual_vectors,
            progress,
            ann,
            units,
            identities or {},
            workers,
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
        manifest[FILES_KEY] = record_files(tmp)
        (tmp / MANIFEST).write_text(json.dumps(seal(manifest), indent=2))
        _commit(tmp, out_dir, overwrite)
    except BaseException as exc:
        # The traceback's frames hold the writers (open files, memory maps, tantivy writers):
        # clear them so their files close now and the removal really frees the disk.
        traceback.clear_frames(exc.__traceback__)
        written = tree_size(tmp)
        shutil.rmtree(tmp, ignore_errors=True)
        error = user_os_error(exc, out_dir, written, at_least=True)
        if error is None:
            raise
        # Name where the index was going, not the staging folder that is gone now.
        raise StorageError(str(error).replace(str(tmp), str(out_dir)), error.errno) from exc
    return BuildSummary(out_dir, seconds, sports, tree_size(out_dir))


def _commit(tmp: Path, out_dir: Path, overwrite: bool) -> None:
    """Put the built index at `out_dir`. Without overwrite, an index that appeared meanwhile
    (not by a playscout build: they hold the lock) is kept and this build fails. With it, the
    two directories are exchanged atomically, so readers see the old index or the new one,
    never none; where the file system cannot exchange, the old index is first moved aside."""
    if not overwrite or not out_dir.exists():
        try:
            rename_noreplace(tmp, out_dir)
        except FileExistsError:
            raise IndexExistsError(
                f"{out_dir} appeared while this build ran; it was kept and this build dropped"
            ) from None
        return
    if exchange(tmp, out_dir):
        shutil.rmtree(tmp, ignore_errors=True)  # tmp now holds the old index
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.{RETIRED}-", dir=out_dir.parent))
    os.rename(out_dir, old / "index")
    try:
        os.rename(tmp, out_dir)
    except BaseException:
        os.rename(old / "index", out_dir)
        raise
    shutil.rmtree(old, ignore_errors=True)


def _restore_interrupted_swap(lock: OutputLock, out_dir: Path) -> bool:
    """A build killed between the two renames of the non-atomic swap leaves no index at
    `out_dir` and the old one in `.NAME.old-*/index`: put it back (before the sweep would
    remove it). True when it did."""
    if out_dir.exists():
        return False
    retired = lock.staging(RETIRED)
    for folder in sorted(out_dir.parent.iterdir(), key=lambda p: p.stat().st_mtime, reverse=True):
        if retired.fullmatch(folder.name) and (folder / "index" / MANIFEST).is_file():
            os.rename(folder / "index", out_dir)
            log.warning("%s: restored the index an interrupted build had moved aside", out_dir)
            return True
    return False


def _build_into(
    root: Path,
    sources: Iterable[SportSource],
    doc_embedder: DocumentEmbedder | None,
    caption_embedder: DocumentEmbedder | None,
    visual: VisualVectorSource | None,
    progress: Progress | None,
    ann_options: AnnOptions | None,
    units: DocUnits | None = None,
    identities: Mapping[str, dict[str, Any]] | None = None,
    workers: int | None = None,
) -> dict[str, dict[str, Any]]:
    """Each sport in turn. `workers`: processes that handle clip records (pipeline.py; None:
    one per core but one unless an embedder computes on this CPU). Where the embedders do not
    compute on this CPU, a sport's IVF training and recall tuning run in the background while
    the next sport is read and embedded. Records are handled in this process where clips
    embed other text than their caption (`units`: the reference's or the release's)."""
    style = units.style if units is not None else "playscout"
    known = dict(identities or {})
    out: dict[str, dict[str, Any]] = {}
    processes = record_workers(workers, doc_embedder, caption_embedder)
    if style != "playscout":
        processes = 0
    background = not any(on_cpu(e) for e in (doc_embedder, caption_embedder) if e is not None)
    with contextlib.ExitStack() as stack:
        defer = None
        if background:
            finisher = cf.ThreadPoolExecutor(1, thread_name_prefix="ann")
            stack.callback(finisher.shutdown, wait=True, cancel_futures=True)
            defer = finisher.submit
        deferred: list[tuple[str, str, cf.Future[dict[str, Any]]]] = []
        pool: cf.ProcessPoolExecutor | None = None
        for source in sources:
            sport = source.sport
            check_new_sport(sport, out)
            clock = StageClock()
            sroot = root / sport
            teams, players = Vocab(), Vocab()
            dw = DocWriter(
                sroot / "docs",
                sport,
                teams,
                players,
                doc_embedder,
                progress,
                ann_options,
                source.documents_total,
                units,
                clock,
            )
            with _closing(dw):
                with clock.timed("documents"):
                    for doc in source.documents:
                        dw.add(doc)
                docs_info = dw.finish()
            cw = ClipWriter(
                sroot / "clips",
                sport,
                teams,
                players,
                caption_embedder,
                visual,
                progress,
                ann_options,
                source.clips_total,
                units,
                clock,
                defer=defer,
            )
            with _closing(cw):
                started = time.perf_counter()
                if source.clip_shards is not None and processes > 1:
                    if pool is None:
                        pool = stack.enter_context(record_pool(processes))
                    shards = source.clip_shards
                    for handled in handled_shards(sport, shards, pool, processes):
                        clock.add("records_cpu", handled.seconds, len(handled))
                        cw.add_handled(handled)
                else:
                    for clip in source.clips:
                        cw.add(clip)
                    cw.flush()
                # the records stage as the pipeline saw it: reading and handling, not the
                # waits for the embedding behind it
                waited = cw.pipe.waited if cw.pipe is not None else 0.0
                clock.add("records", time.perf_counter() - started - waited, cw.count)
                clips_info = cw.finish()
            write_entities(sroot, teams, players)
            channels: dict[str, Any] = {}
            if doc_embedder is not None:
                ann = docs_info.pop("dense_ann", None)
                channels["documents"] = channel_entry(
                    doc_embedder, doc_embedder.dim, known.get("documents"), style, ann=ann
                )
            if caption_embedder is not None:
                ann = clips_info.pop("caption_ann", None)
                channels["caption"] = channel_entry(
                    caption_embedder, caption_embedder.dim, known.get("caption"), style, ann=None
                )
                deferred.append((sport, "caption", ann))
            if visual is not None:
                dim = int(np.load(sroot / "clips/visual/dense/vectors.npy", mmap_mode="r").shape[1])
                channels["visual"] = channel_entry(visual, dim, known.get("visual"), None, ann=None)
                deferred.append((sport, "visual", clips_info.pop("visual_ann", None)))
            clip_games = set(cw.games.items)
            out[sport] = {
                **docs_info,
                **clips_info,
                # one meaning of "games" wherever a count is printed: every game the sport's
                # records name, and how many of them have clips
                "games": len(clip_games | set(dw.games.items)),
                "clip_games": len(clip_games),
                "teams": len(teams.items),
                "players": len(players.items),
                "channels": channels,
                "build_seconds": round(time.perf_counter() - clock.started, 3),
                "stages": clock,
            }
        for sport, channel, future in deferred:
            out[sport]["channels"][channel]["ann"] = future.result() if future else None
    for info in out.values():
        info["stages"] = info["stages"].record()
        info["stages"]["records_processes"] = max(1, processes)
    return out


@contextlib.contextmanager
def _closing(writer: DocWriter | ClipWriter) -> Iterator[None]:
    """The writer's embedding thread stops whether its sport finished or failed."""
    try:
        yield
    finally:
        writer.close()
