"""Probing, shot detection and clip cutting on real (PyAV-encoded) videos."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from playscout.media.audio import load_audio
from playscout.media.cut import Window, cut_clips
from playscout.media.errors import BrokenVideoError
from playscout.media.probe import probe_video
from playscout.media.shots import detect_shots


def test_probe_reads_the_stream(three_shots: Path) -> None:
    info = probe_video(three_shots)
    assert (info.width, info.height, info.fps) == (160, 96, 25.0)
    assert info.duration == pytest.approx(14.0, abs=0.1)
    assert info.has_audio


def test_missing_garbage_and_truncated_files_are_refused(tmp_path: Path, three_shots: Path) -> None:
    with pytest.raises(BrokenVideoError, match="not found"):
        probe_video(tmp_path / "nope.mp4")
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"this is not a video" * 100)
    with pytest.raises(BrokenVideoError, match=r"junk\.mp4"):
        probe_video(junk)
    cut = tmp_path / "truncated.mp4"
    cut.write_bytes(three_shots.read_bytes()[:2000])  # header cut off mid-file
    with pytest.raises(BrokenVideoError, match=r"truncated\.mp4"):
        probe_video(cut)


def test_shot_cuts_are_found_to_the_frame(three_shots: Path) -> None:
    cuts = detect_shots(three_shots)
    assert len(cuts) == 2
    assert cuts[0] == pytest.approx(4.0, abs=0.05) and cuts[1] == pytest.approx(9.0, abs=0.05)


def test_cut_writes_each_window_with_its_audio_and_embedding_frames(
    tmp_path: Path, three_shots: Path
) -> None:
    windows = [Window("g_0", 0.0, 4.0), Window("g_1", 4.0, 9.0), Window("g_2", 9.0, 14.0)]
    audio = load_audio(three_shots)
    result = cut_clips(three_shots, windows, tmp_path / "clips", audio=audio, embed_size=48)
    assert set(result.files) == {"g_0", "g_1", "g_2"}
    for w in windows:
        info = probe_video(result.files[w.clip_id])
        assert info.duration == pytest.approx(w.end - w.start, abs=0.1)
        assert info.has_audio
        frames = result.frames[w.clip_id]
        assert len(frames) == int(w.end - w.start)  # 1 fps
        assert min(frames[0].shape[:2]) == 48
    # each clip holds its own shot: the middle pixel colour identifies it
    reds = [float(result.frames[c][0][5, 5, 0]) for c in ("g_0", "g_1", "g_2")]
    greens = [float(result.frames[c][0][5, 5, 1]) for c in ("g_0", "g_1", "g_2")]
    assert reds[0] > 150 > reds[1] and greens[1] > 130 > greens[2]
    clip_audio = load_audio(result.files["g_1"])
    assert clip_audio.size == pytest.approx(5 * 16000, rel=0.05)
    assert np.abs(clip_audio).max() > 0.1


def test_windows_outside_the_cut_list_are_skipped(tmp_path: Path, three_shots: Path) -> None:
    result = cut_clips(three_shots, [Window("g_5", 5.0, 7.0)], tmp_path / "clips", embed_fps=2)
    assert list(result.files) == ["g_5"]
    assert probe_video(result.files["g_5"]).duration == pytest.approx(2.0, abs=0.1)
    assert len(result.frames["g_5"]) == 4
