"""Audio extraction and timed frame decoding on real files."""

from __future__ import annotations

import numpy as np
import pytest

from playscout.media.audio import SAMPLE_RATE, AudioError, load_audio
from playscout.media.errors import VideoError
from playscout.media.timed_frames import even_times, frames_at
from tests.media.samples import MediaCorpus


def _path(mc: MediaCorpus, clip_id: str):  # type: ignore[no-untyped-def]
    p = mc.corpus.clip_path(mc.sport, clip_id)
    assert p is not None
    return p


def test_audio_is_16k_mono_float_of_the_right_length(media_corpus: MediaCorpus) -> None:
    audio = load_audio(_path(media_corpus, media_corpus.speech))
    assert audio.dtype == np.float32 and audio.ndim == 1
    assert audio.size / SAMPLE_RATE == pytest.approx(media_corpus.speech_seconds, abs=0.15)
    assert 0.05 < float(np.abs(audio).max()) <= 1.0  # speech, not silence, not clipped garbage


def test_audio_max_seconds_stops_early(media_corpus: MediaCorpus) -> None:
    audio = load_audio(_path(media_corpus, media_corpus.speech), max_seconds=1.0)
    assert audio.size == SAMPLE_RATE


@pytest.mark.parametrize(
    ("which", "message"),
    [("board", "no audio stream"), ("broken", "cannot decode audio"), ("missing", "not found")],
)
def test_audio_errors_are_one_line(media_corpus: MediaCorpus, which: str, message: str) -> None:
    path = _path(media_corpus, getattr(media_corpus, which))
    with pytest.raises(AudioError) as err:
        load_audio(path)
    assert message in str(err.value) and "\n" not in str(err.value)
    assert str(path.parent) not in str(err.value)  # no absolute paths leak to the model


def test_even_times_are_slice_centres() -> None:
    assert even_times(4.0, 4) == [0.5, 1.5, 2.5, 3.5]
    assert even_times(0.0, 3) == [0.0]


def test_frames_at_given_times_and_past_the_end(media_corpus: MediaCorpus) -> None:
    frames, duration = frames_at(_path(media_corpus, media_corpus.board), [0.0, 1.5, 99.0], 4, 320)
    assert duration == pytest.approx(3.0, abs=0.01)
    times = [f.time for f in frames]
    assert times[0] == 0.0 and times[1] == pytest.approx(1.6, abs=0.01)  # first frame >= 1.5 s
    assert times[-1] == pytest.approx(2.8, abs=0.01)  # 99 s reads the last frame
    assert all(f.image.size == (320, 180) for f in frames)


def test_frames_evenly_spaced(media_corpus: MediaCorpus) -> None:
    frames, _ = frames_at(_path(media_corpus, media_corpus.board), None, 3, 1280)
    assert [f.time for f in frames] == pytest.approx([0.6, 1.6, 2.6], abs=0.01)
    assert frames[0].image.size == (640, 360)  # never upscaled


def test_frames_of_broken_and_audio_only_files(media_corpus: MediaCorpus, tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(VideoError, match="cannot decode video"):
        frames_at(_path(media_corpus, media_corpus.broken), None, 2, 320)
    wav = media_corpus.corpus.root / "speech.wav"
    with pytest.raises(VideoError, match="no video stream"):
        frames_at(wav, None, 2, 320)
