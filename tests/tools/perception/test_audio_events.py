"""detect_audio_events: the configuration errors, and the real transformers path through a
tiny random AudioFlamingo3.

"tiny random AudioFlamingo3: tests the wire path, not quality" - the model is built from a small
config (2-layer audio encoder, 2-layer Qwen2 decoder) with random weights and saved with
save_pretrained, together with a real AudioFlamingo3Processor made offline from a
WhisperFeatureExtractor (16 mel bins, 1 s chunks) and a byte-level BPE tokenizer trained in the
test. Its descriptions are noise; what is checked is that the clip's audio reaches the audio
tower with the right shape and a description comes back through the tool."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest

from playscout.config import PerceptionSettings, Settings
from playscout.media.audio import load_audio
from playscout.perception.audio_events import NOT_CONFIGURED, audio_model
from playscout.tools.registry import PERCEPTION_TOOLS, call_tool
from playscout.tools.tool import ToolContext
from tests.media.samples import MediaCorpus
from tests.tools.perception.tiny_af3 import build_tiny_audio_flamingo3

TOOLS = {t.name: t for t in PERCEPTION_TOOLS}


@pytest.fixture(scope="module")
def tiny_af3(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_audio_flamingo3(tmp_path_factory.mktemp("tiny_af3"))


def test_not_configured_says_what_to_set(
    ctx: ToolContext, media_corpus: MediaCorpus, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("PLAYSCOUT_PERCEPTION__AUDIO_MODEL_DIR", raising=False)
    result = call_tool(TOOLS, ctx, "detect_audio_events", {"video_ids": [media_corpus.tone]})
    assert result.error == NOT_CONFIGURED
    assert "set PLAYSCOUT_PERCEPTION__AUDIO_MODEL_DIR" in result.observation


def test_directory_that_is_not_a_model(
    ctx: ToolContext, media_corpus: MediaCorpus, tmp_path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("PLAYSCOUT_PERCEPTION__AUDIO_MODEL_DIR", str(tmp_path))
    ctx = dataclasses.replace(
        ctx, perception=Settings.load().perception
    )  # settings read the env here
    result = call_tool(TOOLS, ctx, "detect_audio_events", {"video_ids": [media_corpus.tone]})
    assert result.error is not None and "no config.json" in result.observation


@pytest.mark.slow
def test_tiny_random_audioflamingo3_wire_path(
    ctx: ToolContext, media_corpus: MediaCorpus, tiny_af3: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    settings = PerceptionSettings(audio_model_dir=tiny_af3, audio_max_new_tokens=6)
    ctx.perception = settings
    model = audio_model(settings)
    seen: list[tuple[int, ...]] = []
    hook = model.model.model.audio_tower.register_forward_hook(
        lambda _m, args, _kw: seen.append(tuple(args[0].shape))
    )
    try:
        raw = {"video_ids": [media_corpus.tone, media_corpus.board], "query": "Is there a whistle?"}
        result = call_tool(TOOLS, ctx, "detect_audio_events", raw)
    finally:
        hook.remove()
    assert result.error is None, result.observation
    tone, board = result.data.clips
    assert result.data.prompt == "Is there a whistle?"
    assert tone.audio_seconds == pytest.approx(3.0, abs=0.1)
    assert isinstance(tone.description, str)
    # the clip's audio, cut into 1 s chunks of 16 mel bins x 100 frames, reached the audio
    # tower in one call (AAC priming makes it a little over 3 s, hence 4 chunks)
    path = media_corpus.corpus.clip_path("basketball", media_corpus.tone)
    chunks = math.ceil(load_audio(path).size / 16000)
    assert chunks == 4 and seen == [(chunks, 16, 100)]
    assert board.error is not None and "no audio stream" in board.error
    assert result.observation.startswith(f"audio events in 2 clip(s), model {tiny_af3.name}")
    assert audio_model(settings) is model  # loaded once per process
