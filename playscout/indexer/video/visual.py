"""Visual clip vectors: a CLIP image tower over a clip's sampled frames, mean-pooled.

What this writes is what the index's "visual" channel reads (`build_from_corpus(video_vectors=
DIR)`): the consolidated layout `DIR/<sport>/vectors.npy` + `ids.txt`, plus `DIR/embedder.json`
holding the image/text model's spec. `load_keyed(DIR)` then gives the vectors and the matching
text tower, so the index records that spec and default-mode clip searches embed their queries
with the same model's text tower, with nothing else configured.
"""

from __future__ import annotations

import io
import json
import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from playscout.corpus.models import ClipRecord
from playscout.embed.embedder import (
    RUNTIME_OPTIONS,
    EmbedderSpec,
    EmbeddingError,
    ImageEmbedder,
    made_on,
    normalize_rows,
)
from playscout.embed.keyed import SPEC_FILE, write_spec
from playscout.embed.precomputed import write_consolidated
from playscout.media.frames import FrameSize

Progress = Callable[[str, int, int | None], None]
T = TypeVar("T")
U = TypeVar("U")


def clip_vectors(embedder: ImageEmbedder, clips: Sequence[Sequence[np.ndarray]]) -> np.ndarray:
    """One unit vector per clip: image-tower vectors of its frames, averaged, re-normalised.
    Frames of all clips go through the tower together (in the embedder's batches)."""
    counts = [len(frames) for frames in clips]
    for i, n in enumerate(counts):
        if n == 0:
            raise EmbeddingError(f"clip_vectors: clip {i} has no frames")
    if not counts:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    flat = [f for frames in clips for f in frames]
    per_frame = np.asarray(embedder.embed_images(flat), dtype=np.float32)
    return _pool(per_frame, counts, embedder.dim)


def clip_vector(embedder: ImageEmbedder, frames: Sequence[np.ndarray]) -> np.ndarray:
    """(dim,) unit vector of one clip from its sampled HxWx3 uint8 RGB frames."""
    if isinstance(frames, np.ndarray) and frames.ndim == 3:
        frames = [frames]
    return clip_vectors(embedder, [list(frames)])[0]


def decode_frames(images: Sequence[bytes]) -> list[np.ndarray]:
    """JPEG/PNG bytes (e.g. `playscout.media.sample_frames`) -> HxWx3 uint8 RGB arrays."""
    from PIL import Image

    out = []
    for data in images:
        with Image.open(io.BytesIO(data)) as img:
            out.append(np.asarray(img.convert("RGB"), dtype=np.uint8))
    return out


def _spec_dict(spec: EmbedderSpec | Mapping[str, Any]) -> dict[str, Any]:
    parsed = spec if isinstance(spec, EmbedderSpec) else EmbedderSpec(**dict(spec))
    if parsed.kind == "precomputed":
        raise EmbeddingError(
            "visual vectors need the spec of the model that can embed queries (e.g. open_clip), "
            "not 'precomputed'"
        )
    return parsed.model_dump(mode="json")


def _identity(spec: Mapping[str, Any]) -> tuple[Any, ...]:
    options = {k: v for k, v in (spec.get("options") or {}).items() if k not in RUNTIME_OPTIONS}
    return spec.get("kind"), spec.get("model"), spec.get("dim"), sorted(options.items())


class VisualVectorWriter:
    """Collects clip vectors per sport; `finish()` writes them and `embedder.json` into `out_dir`.

    A directory that already holds vectors of another model is refused (one space per directory);
    sports written earlier with the same model are kept."""

    def __init__(
        self,
        out_dir: Path | str,
        spec: EmbedderSpec | Mapping[str, Any],
        made_on: dict[str, str] | None = None,
    ) -> None:
        self.out_dir = Path(out_dir)
        self.spec = _spec_dict(spec)
        self.made_on = made_on
        self._ids: dict[str, list[str]] = {}
        self._vecs: dict[str, list[np.ndarray]] = {}
        existing = self.out_dir / SPEC_FILE
        if existing.is_file():
            try:
                old = json.loads(existing.read_text())
            except (OSError, ValueError) as e:
                raise EmbeddingError(f"cannot read {existing}: {e}") from None
            if _identity(old) != _identity(self.spec):
                raise EmbeddingError(
                    f"{self.out_dir} already holds vectors of another model "
                    f"({old.get('kind')}:{old.get('model')}); write to a new directory"
                )

    def add(self, sport: str, clip_ids: Sequence[str], vectors: np.ndarray) -> None:
        if isinstance(clip_ids, str):
            raise EmbeddingError("VisualVectorWriter.add: clip_ids must be a sequence, not a str")
        arr = np.asarray(vectors, dtype=np.float32)
        if arr.ndim == 1:
            arr = arr[None, :]
        dim = int(self.spec["dim"])
        if arr.shape != (len(clip_ids), dim):
            raise EmbeddingError(
                f"VisualVectorWriter.add: {len(clip_ids)} ids need vectors of shape "
                f"({len(clip_ids)}, {dim}), got {arr.shape}"
            )
        self._ids.setdefault(sport, []).extend(clip_ids)
        self._vecs.setdefault(sport, []).append(arr)

    def finish(self) -> Path:
        if not any(self._ids.values()):
            raise EmbeddingError(f"VisualVectorWriter: no clip vectors to write to {self.out_dir}")
        self.out_dir.mkdir(parents=True, exist_ok=True)
        for sport, ids in self._ids.items():
            write_consolidated(self.out_dir, sport, ids, np.concatenate(self._vecs[sport]))
        write_spec(self.out_dir, self.spec, self.made_on)
        return self.out_dir


def write_visual_vectors(
    out_dir: Path | str,
    sport: str,
    ids: Sequence[str],
    vectors: np.ndarray,
    spec: EmbedderSpec | Mapping[str, Any],
) -> Path:
    """Write one sport's clip vectors and `embedder.json`; returns `out_dir`."""
    writer = VisualVectorWriter(out_dir, spec)
    writer.add(sport, ids, vectors)
    return writer.finish()


FramesOf = Callable[[ClipRecord, Path | None], Sequence[np.ndarray]]


def video_frames(
    path: Path | str, n: int = 8, size: FrameSize | None = None, one_thread: bool = False
) -> list[np.ndarray]:
    """n evenly spaced RGB frames of a clip video file (media.sample_arrays: the frames
    sample_frames picks, without its JPEG round trip): as decoded, or converted in the
    decoding thread to `size` (an image embedder's `frame_size()`: the size its
    preprocessing resizes to). `one_thread` where clips are decoded in parallel."""
    from playscout.media import sample_arrays

    return sample_arrays(path, n=n, size=size, one_thread=one_thread)


Clips = Sequence[Sequence[np.ndarray]]


def clip_vector_stream(
    embedder: ImageEmbedder, groups: Iterable[tuple[list[str], Clips]]
) -> Iterator[tuple[list[str], np.ndarray]]:
    """clip_vectors over a stream of (clip ids, their frames) groups, one tower batch per
    group. With a streaming embedder (open_clip's embed_image_batches) the groups are drawn
    (and so decoded, when the iterator decodes) in its prefetch thread while the tower works."""
    stream = getattr(embedder, "embed_image_batches", None)
    if stream is None:
        for ids, clips in groups:
            yield ids, clip_vectors(embedder, clips)
        return
    pending: deque[tuple[list[str], list[int]]] = deque()

    def flat() -> Iterator[list[np.ndarray]]:
        for ids, clips in groups:
            counts = [len(frames) for frames in clips]
            for i, n in enumerate(counts):
                if n == 0:
                    raise EmbeddingError(f"clip {ids[i]} has no frames")
            pending.append((ids, counts))
            yield [f for frames in clips for f in frames]

    for per_frame in stream(flat()):
        ids, counts = pending.popleft()
        yield ids, _pool(per_frame, counts, embedder.dim)


def _pool(per_frame: np.ndarray, counts: Sequence[int], dim: int) -> np.ndarray:
    if not counts:
        return np.zeros((0, dim), dtype=np.float32)
    ends = np.cumsum(counts)
    pooled = np.stack(
        [per_frame[e - n : e].mean(axis=0) for e, n in zip(ends, counts, strict=True)]
    )
    return normalize_rows(pooled, dim, "clip_vectors")


def decoded(
    items: Iterable[T], read: Callable[[T], U], workers: int, processes: bool = False
) -> Iterator[U]:
    """read(item) for each item in order, `workers` at a time, at most 4 per worker ahead of
    the consumer: in threads (PyAV decodes and converts frames without the GIL), or with
    `processes` in spawned processes (then `read` and the items must pickle: a module-level
    function or a functools.partial of one), where what holds the GIL between frames (PyAV's
    Python objects, the sampling loop) would stop threads from scaling over many cores."""
    if workers <= 1:
        yield from map(read, items)
        return
    pool: Executor = (
        ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
        if processes
        else ThreadPoolExecutor(workers, thread_name_prefix="playscout-decode")
    )
    with pool:
        window: deque[Future[U]] = deque()
        for item in items:
            window.append(pool.submit(read, item))
            if len(window) >= 4 * workers:
                yield window.popleft().result()
        while window:
            yield window.popleft().result()


def clip_file_frames(
    clip: tuple[str, Path], n: int, size: FrameSize | None, one_thread: bool
) -> tuple[str, list[np.ndarray]]:
    """(clip id, video_frames of its file): what a decoding thread or process runs."""
    clip_id, path = clip
    return clip_id, video_frames(path, n, size, one_thread)


def embed_corpus_clips(
    corpus_dir: Path | str,
    out_dir: Path | str,
    embedder: ImageEmbedder,
    sports: Iterable[str] | None = None,
    frames_per_clip: int = 8,
    clips_per_batch: int | None = None,
    frames_of: FramesOf | None = None,
    progress: Progress | None = None,
    decode_workers: int | None = None,
    decode_processes: bool = False,
) -> Path:
    """Visual vectors of every clip of a corpus into `out_dir` (with `embedder.json`).

    Frames come from `frames_of(clip, video_path)` (called in threads) or, by default,
    `frames_per_clip` evenly spaced frames of the clip's video file (`clip_paths`), decoded
    by `decode_workers` threads (processes with `decode_processes`; default: the CPU count;
    FFmpeg's own threads off when there are several) at the embedder's `frame_size()` where
    it has one, while the tower embeds the batch before. A tower batch holds
    `clips_per_batch` clips (default: the embedder's batch size in frames). A clip without a
    readable video is an error: the visual channel needs a vector for every clip."""
    from playscout.corpus import Corpus

    corpus = Corpus(Path(corpus_dir))
    writer = VisualVectorWriter(out_dir, embedder.spec(), made_on(embedder))
    frames_batch = int(getattr(embedder, "batch_size", 32))
    per_batch = clips_per_batch or max(1, frames_batch // frames_per_clip)
    workers = decode_workers or os.cpu_count() or 1
    size_of = getattr(embedder, "frame_size", None)
    size: FrameSize | None = size_of() if size_of is not None else None
    from_file = partial(clip_file_frames, n=frames_per_clip, size=size, one_thread=workers > 1)
    for sport in list(sports or corpus.sports()):

        def located(sport: str = sport) -> Iterator[tuple[str, Path]]:
            for clip in corpus.iter_clips(sport):
                path = corpus.clip_path(sport, clip.clip_id)
                if path is None:
                    raise EmbeddingError(
                        f"clip {clip.clip_id} ({sport}) has no video file in clip_paths; "
                        "every clip needs one for visual vectors"
                    )
                yield clip.clip_id, path

        def given(clip: ClipRecord, sport: str = sport) -> tuple[str, Sequence[np.ndarray]]:
            assert frames_of is not None
            return clip.clip_id, frames_of(clip, corpus.clip_path(sport, clip.clip_id))

        clips: Iterator[tuple[str, Sequence[np.ndarray]]] = (
            decoded(corpus.iter_clips(sport), given, workers)
            if frames_of is not None
            else decoded(located(), from_file, workers, decode_processes)
        )
        done = 0
        for ids, vectors in clip_vector_stream(embedder, _groups(clips, per_batch)):
            writer.add(sport, ids, vectors)
            done += len(ids)
            if progress is not None:
                progress(f"{sport} visual vectors", done, None)
    return writer.finish()


def _groups(
    clips: Iterable[tuple[str, Sequence[np.ndarray]]], size: int
) -> Iterator[tuple[list[str], Clips]]:
    ids: list[str] = []
    frames: list[Sequence[np.ndarray]] = []
    for clip_id, clip_frames in clips:
        ids.append(clip_id)
        frames.append(clip_frames)
        if len(ids) >= size:
            yield ids, frames
            ids, frames = [], []
    if ids:
        yield ids, frames
