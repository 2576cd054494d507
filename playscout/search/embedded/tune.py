"""`playscout index tune DIR`: re-choose each IVF channel's probe setting on new queries (the
server's query log, a query file) without rebuilding the vectors or the IVF index. The
measurement is the build's (recall.py: the same query sets, ladder, per-query rule and
filtered budgets), with the logged queries as one more set every setting must satisfy.

What changes is each tuned channel's `ann.json` and its manifest entry; the manifest's file
records and seal are recomputed for exactly those files (integrity.py), so `index verify`
passes after a tune. Each file is replaced by rename (a reader sees the old or the new file,
never a partial one), the channels' ann.json first and the manifest last."""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from playscout.search.core.spec import QueryEmbedder
from playscout.search.embedded.ann import IvfIndex
from playscout.search.embedded.integrity import FILES_KEY, SEAL_KEY, file_checksum, seal
from playscout.search.embedded.layout import MANIFEST, read_manifest
from playscout.search.embedded.query_log import read_log
from playscout.search.embedded.recall import (
    LADDERS,
    AnnOptions,
    QuerySet,
    _choose,
    _exact_top,
    _query_sets,
)
from playscout.search.embedded.vectors import META_FILE, MappedMatrix, VectorStore

# Where each channel's vectors live under a sport (layout.py)
CHANNEL_DIRS = {
    "documents": "docs/dense",
    "caption": "clips/caption/dense",
    "visual": "clips/visual/dense",
}


def log_queries(
    path: Path, sport: str, channel: str, dim: int, limit: int, rng: np.random.Generator
) -> QuerySet | None:
    """The logged queries of one channel as a query set ("log"), up to `limit` drawn at random;
    None when the log has none for it."""
    found = [q.vector for q in read_log(path) if q.sport == sport and q.channel == channel]
    found = [v for v in found if len(v) == dim]
    if not found:
        return None
    pick = np.sort(rng.choice(len(found), size=min(len(found), limit), replace=False))
    vectors = np.ascontiguousarray(np.stack([found[i] for i in pick]), dtype=np.float32)
    return QuerySet(
        "log", vectors, None, f"{path.name}: {len(pick)} of {len(found)} logged queries"
    )


def tune_channel(
    directory: Path,
    opts: AnnOptions,
    extra: list[QuerySet],
    previous: dict[str, Any],
    embedder: QueryEmbedder | None = None,
) -> dict[str, Any]:
    """The build's measurement on the channel's existing vectors and IVF index, over the
    build's own query sets (rows, the tune file) plus `extra`. Returns the full setting.

    Text windows of rows' texts need the corpus, which a tune does not have: where the build
    measured them, the build's probe count is the floor (a tune can raise it, not drop the
    queries that set it)."""
    matrix = MappedMatrix(directory / "vectors.npy")
    ivf = IvfIndex.load(directory, len(matrix.rows))
    started = time.perf_counter()
    sets = _query_sets(matrix, opts, None, embedder) + extra
    unmeasured = sorted(set(previous.get("queries") or {}) - {qs.name for qs in sets})
    if unmeasured and previous.get("nprobe"):
        opts = dataclasses.replace(opts, min_nprobe=int(previous["nprobe"]))
    for qs in sets:
        qs.kth, qs.top = _exact_top(matrix.rows, qs, opts.k)
    store = VectorStore(matrix, ivf, nprobe=1)
    setting = _choose(store, ivf, sets, opts)
    setting["tuning_seconds"] = round(time.perf_counter() - started, 3)
    setting["tuned"] = {
        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "previous_nprobe": previous.get("nprobe"),
        "not_remeasured": unmeasured,  # the build's sets kept only as the probe floor
    }
    return setting


def tune_index(
    root: Path,
    opts: AnnOptions,
    queries: Path | None = None,
    report: Callable[[str, str, dict[str, Any]], None] | None = None,
    embedders: Mapping[str, QueryEmbedder] | None = None,
) -> dict[str, dict[str, dict[str, Any]]]:
    """Re-choose the setting of every IVF channel of an embedded index in place; returns
    {sport: {channel: manifest entry}} of the channels tuned. `queries`: the query log;
    `opts.tune_queries`: a query file as for `index build --tune-queries` (a .txt one is
    embedded by `embedders[channel]`)."""
    root = Path(root)
    manifest = read_manifest(root)
    if queries is not None:
        read_log(queries)  # a missing or unreadable log is refused before any measurement
    if FILES_KEY not in manifest:
        raise ValueError(f"index at {root} records no checksums; rebuild it before tuning")
    rng = np.random.default_rng(opts.seed + 3)
    tuned: dict[str, dict[str, dict[str, Any]]] = {}
    changed: list[str] = []
    for sport, info in manifest["sports"].items():
        for channel, entry in (info.get("channels") or {}).items():
            ann = entry.get("ann") or {}
            sub = CHANNEL_DIRS.get(channel)
            if sub is None or ann.get("kind") != "faiss-ivf-sq8":
                continue  # exact channels: recall 1.0 by construction, nothing to tune
            directory = root / sport / sub
            dim = int(np.load(directory / "vectors.npy", mmap_mode="r").shape[1])
            extra = []
            if queries is not None:
                logged = log_queries(queries, sport, channel, dim, opts.queries, rng)
                if logged is not None:
                    extra.append(logged)
            embedder = (embedders or {}).get(channel)
            setting = tune_channel(directory, opts, extra, ann, embedder)
            if setting["kind"] == "exact":
                # keep the IVF index file (its record stays valid): a later tune can use it
                setting["reason"] += "; the IVF index is kept for a later tune"
            _replace(directory / META_FILE, json.dumps(setting).encode())
            rel = (directory / META_FILE).relative_to(root).as_posix()
            changed.append(rel)
            entry["ann"] = {k: v for k, v in setting.items() if k not in LADDERS}
            tuned.setdefault(sport, {})[channel] = entry["ann"]
            if report is not None:
                report(sport, channel, entry["ann"])
    if not changed:
        return tuned
    files = manifest[FILES_KEY]
    for rel in changed:
        path = root / rel
        files[rel] = {"size": path.stat().st_size, "checksum": file_checksum(path)}
    body = {k: v for k, v in manifest.items() if k != SEAL_KEY}
    _replace(root / MANIFEST, json.dumps(seal(body), indent=2).encode())
    return tuned


def _replace(path: Path, data: bytes) -> None:
    """Write `data` to a temporary file beside `path`, flush it to disk, rename it over."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
