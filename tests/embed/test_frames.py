"""The batched frame pipeline (embed/frames.py) against open_clip's own PIL preprocessing, on
frames decoded from rendered broadcast MP4s, and its prefetch thread."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from playscout.embed import TINY_MODEL, EmbeddingError, OpenClipEmbedder, make_tiny_weights
from playscout.embed.frames import FramePreprocessor, prefetch, stack_frames
from playscout.media import sample_arrays
from playscout.synthetic.broadcast.clips import render_clip_files
from tests.embed.resizes import counting_resizes


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> OpenClipEmbedder:
    weights = make_tiny_weights(tmp_path_factory.mktemp("w") / "tiny.pt", seed=1)
    return OpenClipEmbedder(TINY_MODEL, pretrained=str(weights), device="cpu", batch_size=8)


@pytest.fixture(scope="module")
def broadcast_frames(tmp_path_factory: pytest.TempPathFactory) -> list[np.ndarray]:
    """Frames of three rendered 2 s broadcast clips (320x180 H.264), decoded as arrays."""
    paths = render_clip_files(
        tmp_path_factory.mktemp("bc"), 3, seconds=2.0, size=(320, 180), fps=10
    )
    assert len(paths) == 3
    return [f for p in paths for f in sample_arrays(p, n=4)]


def cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.sum(a * b, axis=1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)


def test_pipeline_vectors_match_open_clip_pil_preprocessing(
    clip: OpenClipEmbedder, broadcast_frames: list[np.ndarray]
) -> None:
    """Resize kernels differ (torch antialiased bicubic vs PIL's): min cosine 0.9999992 on
    these frames with the tiny model (0.9999988 with random ViT-B-32 weights; trained weights
    may be more sensitive); the requirement is 0.99."""
    ours = clip.embed_images(broadcast_frames)
    theirs = clip.embed_images_pil(broadcast_frames)
    assert ours.shape == theirs.shape == (12, 64)
    assert cosine(ours, theirs).min() >= 0.99


def test_pixels_match_pil_within_rounding(
    clip: OpenClipEmbedder, broadcast_frames: list[np.ndarray]
) -> None:
    """Before the tower: the torch pixels are PIL's to within a few uint8 levels."""
    from PIL import Image

    prep = clip.preprocessor()
    assert isinstance(prep, FramePreprocessor)
    ours = prep(stack_frames(broadcast_frames[:4], pin=False, where="t")).numpy()
    theirs = np.stack(
        [clip._m.preprocess(Image.fromarray(f)).numpy() for f in broadcast_frames[:4]]
    )
    std = np.asarray(clip._m.preprocess_cfg["std"]).reshape(1, 3, 1, 1)
    levels = np.abs(ours - theirs) * std * 255
    assert levels.mean() < 1.0 and np.percentile(levels, 99) <= 3.0


def test_a_large_batch_is_stacked_by_several_threads_exactly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Frames go straight into the batch tensor, split across threads when the batch is
    large; every frame lands at its position, groups of each size in batch order."""
    import torch

    from playscout.embed import frames as frames_module

    monkeypatch.setattr(frames_module, "PARALLEL_COPY_BYTES", 1)
    monkeypatch.setattr(frames_module, "COPY_THREADS", 3)
    rng = np.random.default_rng(4)
    frames = [
        rng.integers(0, 256, (18, 32, 3) if i % 3 else (20, 24, 3), dtype=np.uint8)
        for i in range(11)
    ]
    batch = stack_frames(frames, pin=False, where="t")
    assert batch.size == 11 and len(batch.groups) == 2
    seen = []
    for positions, host in batch.groups:
        assert host.dtype == torch.uint8 and len(host) == len(positions)
        for p, stacked in zip(positions.tolist(), host.numpy(), strict=True):
            np.testing.assert_array_equal(stacked, frames[p])
            seen.append(p)
    assert sorted(seen) == list(range(11))
    threads = {t.name for t in threading.enumerate()}
    assert any(name.startswith("playscout-stack") for name in threads)


def test_mixed_sizes_keep_their_order(clip: OpenClipEmbedder) -> None:
    rng = np.random.default_rng(2)
    frames = [
        rng.integers(0, 256, shape, dtype=np.uint8)
        for shape in [(36, 64, 3), (64, 48, 3), (36, 64, 3), (90, 90, 3), (64, 48, 3)]
    ]
    together = clip.embed_images(frames)
    one_by_one = np.concatenate([clip.embed_images([f]) for f in frames])
    np.testing.assert_allclose(together, one_by_one, atol=1e-5)


def test_batches_stream_in_order_and_empty_batches_stay(clip: OpenClipEmbedder) -> None:
    rng = np.random.default_rng(3)
    frames = [rng.integers(0, 256, (40, 60, 3), dtype=np.uint8) for _ in range(7)]
    out = list(clip.embed_image_batches([frames[:3], [], frames[3:]]))
    assert [len(o) for o in out] == [3, 0, 4]
    np.testing.assert_allclose(np.concatenate(out), clip.embed_images(frames), atol=1e-5)


def test_a_bad_frame_in_a_later_batch_is_raised_after_the_batches_before_it(
    clip: OpenClipEmbedder,
) -> None:
    """The pipeline runs a batch ahead (the next batch's copy overlaps this one's tower),
    yet a bad batch is raised at its own place: every batch before it is given first."""
    good = [np.zeros((20, 20, 3), np.uint8)]
    given = []
    with pytest.raises(EmbeddingError, match="frame 0 must be an HxWx3 uint8 RGB array"):
        for out in clip.embed_image_batches([good, good * 2, [np.zeros((20, 20), np.uint8)]]):
            given.append(len(out))
    assert given == [1, 2]


def test_prefetch_runs_the_producer_in_another_thread_and_stops_early() -> None:
    seen: list[str] = []
    pulled: list[int] = []

    def items() -> object:
        for i in range(100):
            pulled.append(i)
            yield i

    def fn(i: int) -> int:
        seen.append(threading.current_thread().name)
        return i * 2

    gen = prefetch(items(), fn, depth=2)
    assert [next(gen), next(gen)] == [0, 2]
    gen.close()  # the consumer stops: the producer thread ends, never draining all 100
    assert set(seen) == {"playscout-frame-prefetch"}
    assert len(pulled) < 100


def test_prefetch_hands_errors_to_the_consumer() -> None:
    def fn(i: int) -> int:
        if i == 2:
            raise ValueError("boom at 2")
        return i

    got: list[int] = []
    with pytest.raises(ValueError, match="boom at 2"):
        for x in prefetch(range(5), fn):
            got.append(x)
    assert got == [0, 1]


def test_unknown_resize_mode_is_refused() -> None:
    with pytest.raises(EmbeddingError, match="resize mode 'longest'"):
        FramePreprocessor(64, (0.5,) * 3, (0.5,) * 3, "cpu", None, resize_mode="longest")


def test_frames_from_a_written_clip_file(tmp_path: Path, clip: OpenClipEmbedder) -> None:
    from playscout.indexer.video.visual import video_frames

    paths = render_clip_files(tmp_path, 1, seconds=1.0, size=(160, 96), fps=5)
    frames = video_frames(paths[0], n=3)
    assert len(frames) == 3 and frames[0].shape == (96, 160, 3)
    assert clip.embed_images(frames).shape == (3, 64)


@pytest.fixture(scope="module")
def broadcast_clips(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Four rendered 2 s broadcast clips, 320x180 H.264."""
    return render_clip_files(tmp_path_factory.mktemp("bc4"), 4, seconds=2.0, size=(320, 180))


def test_frames_decoded_at_the_towers_size_skip_the_device_resize_and_keep_the_vectors(
    clip: OpenClipEmbedder, broadcast_clips: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Frames converted by swscale to the size the pipeline resizes to (its shortest side the
    tower's input, 64 for the tiny model) are only cropped and normalised on the device, and
    the clip vectors stay those of the full-size frames: min cosine 0.99990 on these clips
    (0.99963 with random ViT-B-32 weights on 640x360 and 1280x720 renders; benchmarks/gpu.py
    prints it); 0.9995 is required. The wrong side at 64 (36x64, upscaled on the device) gives
    0.9975 and (64, 64) squashed 0.9960; a size near the right one (72x128) passes the bound
    at 0.99964 but is resized on the device, which the resize count catches."""
    from playscout.indexer.video.visual import clip_vectors

    size = clip.frame_size()
    prep = clip.preprocessor()
    assert size is not None and prep is not None and size == prep.target
    calls = counting_resizes(monkeypatch)
    full = [sample_arrays(p, n=4) for p in broadcast_clips]
    at_size = [sample_arrays(p, n=4, size=size, one_thread=True) for p in broadcast_clips]
    assert {f.shape for c in full for f in c} == {(180, 320, 3)}
    assert {f.shape for c in at_size for f in c} == {(64, 113, 3)} == {(*size(180, 320), 3)}

    reference = clip_vectors(clip, full)
    assert calls and all(shape[2:] == (180, 320) for shape in calls)  # full size: resized
    calls.clear()
    ours = clip_vectors(clip, at_size)
    assert calls == []  # at the tower's size: no resize on the device
    assert cosine(ours, reference).min() >= 0.9995


def test_frame_target_is_the_resize_before_the_crop() -> None:
    """`shortest` scales the short side to the input size (width truncated, as torchvision),
    portrait frames too; `squash` gives (S, S) whatever the frame."""
    from playscout.embed.frames import FrameTarget

    shortest, squash = FrameTarget(224), FrameTarget(224, "squash")
    assert shortest(720, 1280) == (224, 398) and shortest(360, 640) == (224, 398)
    assert shortest(1280, 720) == (398, 224) and shortest(300, 300) == (224, 224)
    assert squash(720, 1280) == (224, 224)
    for h, w in [(720, 1280), (1280, 720), (201, 199)]:  # a frame already at size stays
        assert shortest(*shortest(h, w)) == shortest(h, w)
