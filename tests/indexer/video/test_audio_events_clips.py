"""Per-clip audio events: skipped (and saying so) without a configured model; with the tiny random
AudioFlamingo3 the real transformers path runs, clips batched into one generate(). The tiny
model's text is meaningless: what is checked is which audio reached the audio tower, in what
batches, and that every clip comes back with strings."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import time
from pathlib import Path

import numpy as np
import pytest

import playscout  # noqa: F401 - installs the torchvision shim before transformers loads
from playscout.config import PerceptionSettings
from playscout.indexer.video import audio_events as ae
from playscout.indexer.video.audio_events import describe_clips, describe_windows, parse_events
from playscout.indexer.video.speech import ModelUnavailableError
from playscout.media.audio import SAMPLE_RATE
from playscout.perception.audio_events import NOT_CONFIGURED, audio_model
from tests.media import samples as media
from tests.tools.perception.tiny_af3 import build_tiny_audio_flamingo3


def test_parse_events() -> None:
    text = "- Crowd cheering\n2) whistle; crowd cheering.\n\n* buzzer at the end "
    assert parse_events(text) == ["Crowd cheering", "whistle", "buzzer at the end"]
    assert parse_events("") == [] and parse_events("horn\x15blast") == ["horn blast"]
    assert len(parse_events("\n".join(f"sound {i}" for i in range(20)))) == ae.MAX_EVENTS


def test_no_model_configured_skips_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    def never(_: object) -> None:
        raise AssertionError("a model was loaded although none is configured")

    monkeypatch.setattr(ae, "audio_model", never)
    settings = PerceptionSettings(audio_model_dir=None)
    run = describe_windows(np.ones(SAMPLE_RATE, np.float32), [("g_0", 0.0, 1.0)], settings)
    assert run.skipped == NOT_CONFIGURED and run.model is None
    assert run.events == {"g_0": []} and run.clips_described == 0
    assert describe_clips({"g_1": "missing.mp4"}, settings).events == {"g_1": []}


def test_a_directory_that_is_not_a_model_is_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailableError, match=r"no config\.json"):
        describe_windows(np.zeros(0, np.float32), [], PerceptionSettings(audio_model_dir=tmp_path))


@pytest.fixture(scope="module")
def tiny_af3(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_audio_flamingo3(tmp_path_factory.mktemp("tiny_af3"))


@pytest.mark.slow
def test_tiny_random_af3_describes_every_clip_in_batches(tiny_af3: Path, tmp_path: Path) -> None:
    settings = PerceptionSettings(audio_model_dir=tiny_af3, audio_max_new_tokens=5)
    model = audio_model(settings)
    seen: list[tuple[int, ...]] = []
    hook = model.model.model.audio_tower.register_forward_hook(
        lambda _m, args, _kw: seen.append(tuple(args[0].shape))
    )
    t = np.arange(10 * SAMPLE_RATE) / SAMPLE_RATE
    game = (0.3 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)  # 10 s of "game audio"
    windows = [("g_0", 0.0, 2.0), ("g_1", 2.0, 4.0), ("g_2", 4.0, 6.5), ("g_3", 12.0, 14.0)]
    try:
        t0 = time.perf_counter()
        run = describe_windows(game, windows, settings, batch_size=2)
        seconds = time.perf_counter() - t0
        tone = media.tone_clip(tmp_path / "tone.mp4")
        files = describe_clips({"c_0": tone}, settings)
    finally:
        hook.remove()
    assert run.skipped is None and run.model == tiny_af3.name
    assert set(run.events) == {"g_0", "g_1", "g_2", "g_3"}
    assert all(
        isinstance(e, list) and all(isinstance(s, str) for s in e) for e in run.events.values()
    )
    # g_3 lies past the end of the audio: no generate() for it
    assert set(run.descriptions) == {"g_0", "g_1", "g_2"} and run.events["g_3"] == []
    assert all(isinstance(d, str) for d in run.descriptions.values())
    # 1 s chunks of 16 mel bins x 100 frames: g_0 + g_1 in one batch (2 + 2), then g_2 (3)
    assert seen[:2] == [(4, 16, 100), (3, 16, 100)] and run.clips_described == 3
    assert set(files.events) == {"c_0"} and isinstance(files.descriptions["c_0"], str)
    assert seen[2][0] == 4  # the 3 s tone clip file (AAC priming makes it 4 chunks)
    print(f"\ntiny AF3: 3 clips in 2 batches in {seconds:.2f} s (model already loaded)")
