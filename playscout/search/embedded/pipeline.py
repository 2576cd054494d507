"""The index build as a pipeline (issue 36): record handling over the cores, the embedding in
the calls its device wants, and the two overlapped.

- Records are handled (parsed, checked, serialised: `handle_clips`) in worker processes, one
  shard of games each, where the source offers shards and the cores are not the embedder's; the
  writer only appends what they return, in shard order, so the index is the one a single
  process writes.
- Texts are embedded by one background thread (`EmbedPipe`), in calls of `embed_call_size`
  texts (the model sorts a call by length and pads each batch to its own longest text, so a
  call of many batches pads little); the writer goes on handling records meanwhile and takes
  the vectors back in order.
- `StageClock` measures each stage's busy seconds and rate; the manifest records them.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import orjson

from playscout.corpus.models import ClipRecord
from playscout.search.core.build import check_record_sport

# Texts per embedding call on a GPU: many of the device's batches, so one call sorts them by
# length and each batch pads to its own longest text (issue 36: 256-caption calls of the
# corpus's ~95-token captions ran at 0.50x of the bare model on an H200, one large call 1.0x).
GPU_CALL_BATCHES = 8
# On the CPU a call of 256 already holds 16 of its 16-text batches, and a larger one ran no
# faster on the 2-core machine; 256 keeps progress moving every few seconds.
CPU_CALL = 256
PIPE_DEPTH = 2  # embedding calls queued behind the running one (bounds the texts held)
SHARD_AHEAD = 2  # shards in flight per worker process


@dataclass
class HandledClips:
    """What an index keeps of a run of clips, in their order: the columns' values, the record
    (without its caption) as the blob stores it, the caption. Cheap to pickle, so worker
    processes return it."""

    clip_ids: list[str] = field(default_factory=list)
    game_ids: list[str] = field(default_factory=list)
    dates: list[str | None] = field(default_factory=list)
    index: list[int] = field(default_factory=list)
    period: list[int] = field(default_factory=list)
    vstart: list[float] = field(default_factory=list)
    vend: list[float] = field(default_factory=list)
    teams: list[list[str]] = field(default_factory=list)
    players: list[list[str]] = field(default_factory=list)
    records: list[bytes] = field(default_factory=list)
    captions: list[str] = field(default_factory=list)
    embed_texts: list[str] | None = None  # what is embedded of each clip, where not its caption
    observed: int = 0  # clips with transcript or audio-event text
    seconds: float = 0.0  # spent handling them

    def __len__(self) -> int:
        return len(self.clip_ids)


def handle_clips(
    sport: str,
    clips: Iterable[ClipRecord],
    caption_text: Callable[[ClipRecord], str] | None = None,
) -> HandledClips:
    """The per-record work of a clip build, for any run of clips; `caption_text`: what is
    embedded of a clip where it is not its caption (search/core/units.py)."""
    started = time.perf_counter()
    out = HandledClips(embed_texts=None if caption_text is None else [])
    for clip in clips:
        check_record_sport("clip", clip.clip_id, clip.sport, sport)
        out.clip_ids.append(clip.clip_id)
        out.game_ids.append(clip.game_id)
        out.dates.append(clip.date)
        out.index.append(clip.index)
        out.period.append(clip.period)
        out.vstart.append(clip.video_start)
        out.vend.append(clip.video_end)
        out.teams.append(clip.teams)
        out.players.append(clip.players)
        out.records.append(orjson.dumps(clip.model_dump(mode="json", exclude={"caption"})))
        out.captions.append(clip.caption)
        if out.embed_texts is not None and caption_text is not None:
            out.embed_texts.append(caption_text(clip))
        out.observed += bool(clip.observed_text())
    out.seconds = time.perf_counter() - started
    return out


# A shard of a source's clips: a picklable callable that yields them (e.g. a few games read
# from the corpus), so a worker process can read and handle them itself.
ClipShard = Callable[[], Iterable[ClipRecord]]


def _handle_shard(sport: str, shard: ClipShard) -> HandledClips:
    """Read and handle one shard; its seconds count the reading too."""
    started = time.perf_counter()
    handled = handle_clips(sport, shard())
    handled.seconds = time.perf_counter() - started
    return handled


def record_pool(workers: int) -> cf.ProcessPoolExecutor:
    """`workers` processes for handled_shards, spawned (they share nothing with a parent that
    runs a model); one pool serves every sport of a build."""
    return cf.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))


def handled_shards(
    sport: str, shards: Sequence[ClipShard], pool: cf.ProcessPoolExecutor, workers: int
) -> Iterator[HandledClips]:
    """Each shard handled by the pool's `workers` processes, yielded in shard order, at most
    SHARD_AHEAD shards a process in flight."""
    pending: deque[cf.Future[HandledClips]] = deque()
    todo = iter(shards)
    try:
        for shard in todo:
            pending.append(pool.submit(_handle_shard, sport, shard))
            if len(pending) >= workers * SHARD_AHEAD:
                break
        while pending:
            done = pending.popleft().result()
            for shard in todo:
                pending.append(pool.submit(_handle_shard, sport, shard))
                break
            yield done
    finally:
        for future in pending:
            future.cancel()


def on_cpu(embedder: Any) -> bool:
    """Whether `embedder` computes on this machine's CPU (its cores are then the embedder's)."""
    placement = getattr(embedder, "placement", None)
    return placement is not None and not getattr(placement, "is_cuda", False)


def record_workers(requested: int | None, *embedders: Any) -> int:
    """Processes that handle records: `requested` when given (0 or 1: this process), else one
    per core but one, unless an embedder computes on the CPU (its streams use every core)."""
    if requested is not None:
        return max(0, requested)
    if any(on_cpu(e) for e in embedders if e is not None):
        return 0
    return max(0, (os.cpu_count() or 1) - 1)


def embed_call_size(embedder: Any) -> int:
    """Texts per embedding call: GPU_CALL_BATCHES of the device's batches on a GPU, else
    CPU_CALL."""
    placement = getattr(embedder, "placement", None)
    batch = getattr(embedder, "batch_size", None)
    if placement is not None and getattr(placement, "is_cuda", False) and batch:
        return max(CPU_CALL, GPU_CALL_BATCHES * int(batch))
    return CPU_CALL


class StageClock:
    """Busy seconds and items per stage (`records`, `embed`, `bm25`, `ann`...), added from
    any thread; `record()` is what the manifest keeps."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.seconds: dict[str, float] = {}
        self.items: dict[str, int] = {}
        self._lock = threading.Lock()

    def add(self, stage: str, seconds: float, items: int = 0) -> None:
        with self._lock:
            self.seconds[stage] = self.seconds.get(stage, 0.0) + seconds
            self.items[stage] = self.items.get(stage, 0) + items

    def timed(self, stage: str, items: int = 0) -> _Timed:
        return _Timed(self, stage, items)

    def record(self) -> dict[str, Any]:
        wall = time.perf_counter() - self.started
        out: dict[str, Any] = {"wall_seconds": round(wall, 3)}
        for stage, seconds in self.seconds.items():
            entry: dict[str, Any] = {"seconds": round(seconds, 3)}
            if self.items.get(stage):
                entry["items"] = self.items[stage]
                entry["per_second"] = round(self.items[stage] / max(seconds, 1e-9), 1)
            out[stage] = entry
        return out


class _Timed:
    def __init__(self, clock: StageClock, stage: str, items: int) -> None:
        self.clock, self.stage, self.items = clock, stage, items

    def __enter__(self) -> _Timed:
        self.t = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.clock.add(self.stage, time.perf_counter() - self.t, self.items)


class EmbedPipe:
    """Embeds in a background thread, in order: `submit(count, work, on_done)` queues one call
    (`work()` returns the vectors of `count` texts; `submit` waits while PIPE_DEPTH calls are
    queued) and `on_done(vectors)` runs in the caller's thread, in submission order, from a
    later `submit`, `collect` or `drain`. The model's products release the GIL, so the caller
    handles records meanwhile."""

    def __init__(self, clock: StageClock | None = None) -> None:
        self.clock = clock
        self.waited = 0.0  # seconds the caller spent waiting for the embedding
        self._pool = cf.ThreadPoolExecutor(1, thread_name_prefix="embed-pipe")
        self._pending: deque[tuple[cf.Future[np.ndarray], Callable[[np.ndarray], None]]] = deque()

    def _run(self, count: int, work: Callable[[], np.ndarray]) -> np.ndarray:
        started = time.perf_counter()
        vectors = work()
        if self.clock is not None:
            self.clock.add("embed", time.perf_counter() - started, count)
        return vectors

    def submit(
        self, count: int, work: Callable[[], np.ndarray], on_done: Callable[[np.ndarray], None]
    ) -> None:
        self._pending.append((self._pool.submit(self._run, count, work), on_done))
        self.collect(block=len(self._pending) > PIPE_DEPTH)

    def collect(self, block: bool = False) -> None:
        """Hand finished calls to their callbacks, in order; `block`: wait for the oldest."""
        while self._pending and (block or self._pending[0][0].done()):
            future, on_done = self._pending.popleft()
            started = time.perf_counter()
            vectors = future.result()
            self.waited += time.perf_counter() - started
            on_done(vectors)
            block = False

    def drain(self) -> None:
        while self._pending:
            self.collect(block=True)

    def close(self) -> None:
        """Stop: drop what is queued (a failed build), wait for the running call."""
        for future, _ in self._pending:
            future.cancel()
        self._pending.clear()
        self._pool.shutdown(wait=True)
