"""sample_frames on real video files written with PyAV."""

from __future__ import annotations

import io
import wave
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from playscout.media import MediaError, sample_frames
from tests.media.videos import frame_index, write_video


def size(jpeg: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(jpeg)) as img:
        assert img.format == "JPEG"
        return img.size


@pytest.mark.parametrize("codec", ["mpeg4", "libx264"])
def test_sixteen_frames_evenly_spaced_over_the_whole_clip(tmp_path: Path, codec: str) -> None:
    path = tmp_path / "clip.mp4"
    n = write_video(path, seconds=3.0, fps=25, codec=codec)  # libx264 adds B-frames
    frames = sample_frames(path)
    assert len(frames) == 16
    expected = np.linspace(0, n - 1, 16).round().astype(int).tolist()
    got = [frame_index(f) for f in frames]
    assert all(abs(g - e) <= 1 for g, e in zip(got, expected, strict=True)), (got, expected)
    assert got[0] == 0 and got[-1] == n - 1


@pytest.mark.parametrize("codec", ["mpeg4", "libx264"])
def test_long_clip_uses_seeks_and_still_lands_on_targets(tmp_path: Path, codec: str) -> None:
    path = tmp_path / "long.mp4"
    # Targets 2.6 s apart: each is reached by a seek to a keyframe, then decoding forward.
    n = write_video(path, seconds=40.0, fps=2, size=(320, 180), gop=4, codec=codec)
    got = [frame_index(f) for f in sample_frames(path, n=16)]
    expected = np.linspace(0, n - 1, 16).round().astype(int).tolist()
    assert all(abs(g - e) <= 1 for g, e in zip(got, expected, strict=True)), (got, expected)


def test_more_frames_asked_than_the_clip_has(tmp_path: Path) -> None:
    path = tmp_path / "short.mp4"
    write_video(path, seconds=0.4, fps=25, size=(64, 48))  # 10 frames
    got = [frame_index(f) for f in sample_frames(path, n=16)]
    assert len(got) == 16 and got[0] == 0 and got[-1] == 9
    assert got == sorted(got) and set(got) == set(range(10))


def test_scaled_down_only_keeping_aspect(tmp_path: Path) -> None:
    wide, tall, small = tmp_path / "w.mp4", tmp_path / "t.mp4", tmp_path / "s.mp4"
    write_video(wide, seconds=0.2, size=(640, 360))
    write_video(tall, seconds=0.2, size=(180, 640))
    write_video(small, seconds=0.2, size=(160, 90))
    assert size(sample_frames(wide, n=2)[0]) == (336, 189)
    w, h = size(sample_frames(tall, n=2)[0])
    assert h == 336 and abs(w - 180 * 336 / 640) <= 1
    assert size(sample_frames(small, n=2)[0]) == (160, 90)  # never upscaled
    assert size(sample_frames(wide, n=1, long_side=100)[0]) == (100, 56)


def test_quality_changes_the_encoding(tmp_path: Path) -> None:
    path = tmp_path / "c.png"
    rng = np.random.default_rng(0)
    Image.fromarray(rng.integers(0, 255, (200, 300, 3), dtype=np.uint8)).save(path)
    low = sample_frames(path, quality=30)[0]
    high = sample_frames(path, quality=95)[0]
    assert len(low) < len(high)


@pytest.mark.parametrize("suffix", [".png", ".jpg", ".JPEG"])
def test_image_inputs_give_one_image(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"still{suffix}"
    Image.new("RGB", (800, 600), (200, 10, 10)).save(
        path, format="PNG" if suffix == ".png" else "JPEG"
    )
    frames = sample_frames(path, n=16)
    assert len(frames) == 1 and size(frames[0]) == (336, 252)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(MediaError, match="file not found"):
        sample_frames(tmp_path / "nope.mp4")


def test_garbage_and_truncated_files(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.mp4"
    garbage.write_bytes(b"\x00\x01not a video at all" * 100)
    real = tmp_path / "real.mp4"
    write_video(real, seconds=1.0)
    truncated = tmp_path / "truncated.mp4"
    truncated.write_bytes(real.read_bytes()[: real.stat().st_size // 2])
    for path in (garbage, truncated):
        with pytest.raises(MediaError, match="cannot decode video") as info:
            sample_frames(path)
        assert str(path) in str(info.value) and "\n" not in str(info.value)


def test_broken_image(tmp_path: Path) -> None:
    path = tmp_path / "broken.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n garbage")
    with pytest.raises(MediaError, match="cannot read image"):
        sample_frames(path)


def test_audio_only_file_has_no_video_stream(tmp_path: Path) -> None:
    path = tmp_path / "sound.wav"
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(b"\x00\x00" * 8000)
    with pytest.raises(MediaError, match="no video stream"):
        sample_frames(path)


def test_bad_arguments(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        sample_frames(tmp_path / "x.mp4", n=0)


def test_arrays_at_a_given_size_and_in_one_thread(tmp_path: Path) -> None:
    """`size` converts each frame (video and image) to the (h, w) it gives for the frame's own
    (h, w), as one smooth downscale (a flat frame stays flat at its level); `one_thread`
    decodes the very same pixels as FFmpeg's threads do."""
    from playscout.media import sample_arrays

    def half(h: int, w: int) -> tuple[int, int]:
        return h // 2, w // 2

    path = tmp_path / "clip.mp4"
    write_video(path, seconds=1.0, fps=10, size=(320, 180), codec="libx264")
    full = sample_arrays(path, n=4)
    for small, big in zip(sample_arrays(path, n=4, size=half), full, strict=True):
        assert small.shape == (90, 160, 3) and small.dtype == np.uint8
        assert abs(float(small.mean()) - float(big.mean())) < 2.0
    threaded = sample_arrays(path, n=4)
    for a, b in zip(sample_arrays(path, n=4, one_thread=True), threaded, strict=True):
        np.testing.assert_array_equal(a, b)
    png = tmp_path / "still.png"
    Image.new("RGB", (320, 180), (200, 40, 10)).save(png)
    (image,) = sample_arrays(png, size=half)
    assert image.shape == (90, 160, 3) and tuple(image[45, 80]) == (200, 40, 10)
    assert sample_arrays(png, size=lambda h, w: (h, w))[0].shape == (180, 320, 3)
