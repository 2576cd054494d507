"""What each clip sounds like besides speech (crowd, whistle, buzzer, horn, music), described by
Audio Flamingo 3 from the game audio cut to the clip's window.

The model is the perception tool's (one load per process); clips go through it a batch at a time
because one generate() over a few 10-15 s clips costs little more than one. No AF3 weights ship on
PyPI, so without a configured model directory this step is skipped and says so: a guess from
loudness would be searchable text that nothing heard. A tiny random AF3 (the tests' model) runs
the same code but writes meaningless text."""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from playscout.config import PerceptionSettings
from playscout.indexer.video.speech import (
    AudioSource,
    ModelUnavailableError,
    Progress,
    Window,
    decode_game_audio,
    window_spans,
)
from playscout.media.audio import SAMPLE_RATE
from playscout.perception.audio_events import NOT_CONFIGURED, audio_model
from playscout.perception.errors import EngineUnavailable

EVENTS_PROMPT = (
    "List the non-speech sounds in this sports broadcast audio (crowd cheering or booing, "
    "whistle, buzzer, horn, music, applause, ball or body impacts), one short phrase per line."
)
MAX_EVENTS = 8  # per clip: a 10-15 s clip has a few; more is the model rambling
MAX_EVENT_CHARS = 120
MIN_CLIP_SECONDS = 0.1  # shorter slices carry no sound event worth a generate()

_BULLET = re.compile(r"^\s*(?:[-*\u2022]+|\d+[.)])\s*")


@dataclass
class AudioEventsRun:
    """Per-clip events; `skipped` says why nothing ran (then every clip has none)."""

    model: str | None
    skipped: str | None  # e.g. NOT_CONFIGURED
    events: dict[str, list[str]] = field(default_factory=dict)
    descriptions: dict[str, str] = field(default_factory=dict)  # raw model text per clip
    clips_described: int = 0
    seconds: float = 0.0  # generate() wall time


def parse_events(text: str) -> list[str]:
    """Model text -> short event phrases: one per line or ';' item, bullets and control
    characters dropped, no repeats (they become index text and search highlights)."""
    out: list[str] = []
    seen: set[str] = set()
    for raw in re.split(r"[\n;]+", text):
        printable = "".join(ch if ch.isprintable() else " " for ch in raw)
        item = " ".join(_BULLET.sub("", printable).split()).strip(" .,")
        key = item.lower()
        if not item or key in seen:
            continue
        seen.add(key)
        out.append(item[:MAX_EVENT_CHARS])
        if len(out) == MAX_EVENTS:
            break
    return out


def describe_windows(
    audio_or_video_path: AudioSource,
    windows: Sequence[Window],
    settings: PerceptionSettings,
    *,
    prompt: str = EVENTS_PROMPT,
    batch_size: int = 4,
    progress: Progress | None = None,
) -> AudioEventsRun:
    """Audio events of each clip window, cut from one game's audio (decoded once)."""
    spans = window_spans(windows)
    model, run = _start([cid for cid, _, _ in spans], settings)
    if model is None:
        return run
    audio = decode_game_audio(audio_or_video_path)
    clips = []
    for cid, start, end in spans:
        lo, hi = max(0, int(start * SAMPLE_RATE)), min(audio.size, int(end * SAMPLE_RATE))
        clips.append((cid, audio[lo:hi] if hi > lo else audio[:0]))
    return _describe(model, run, clips, settings, prompt, batch_size, progress)


def describe_clips(
    files: Mapping[str, str | Path],
    settings: PerceptionSettings,
    *,
    prompt: str = EVENTS_PROMPT,
    batch_size: int = 4,
    progress: Progress | None = None,
) -> AudioEventsRun:
    """Audio events of clip files (clip_id -> path); a clip without audio has none."""
    model, run = _start(list(files), settings)
    if model is None:
        return run
    clips = [(cid, decode_game_audio(path)) for cid, path in files.items()]
    return _describe(model, run, clips, settings, prompt, batch_size, progress)


def _start(clip_ids: list[str], settings: PerceptionSettings) -> tuple[Any, AudioEventsRun]:
    """The model (None when not configured: the run says it was skipped) and an empty run."""
    empty: dict[str, list[str]] = {cid: [] for cid in clip_ids}
    if settings.audio_model_dir is None:
        return None, AudioEventsRun(model=None, skipped=NOT_CONFIGURED, events=empty)
    try:
        model = audio_model(settings)
    except EngineUnavailable as e:
        raise ModelUnavailableError(str(e)) from None
    return model, AudioEventsRun(model=model.name, skipped=None, events=empty)


def _describe(
    model: Any,
    run: AudioEventsRun,
    clips: list[tuple[str, np.ndarray]],
    settings: PerceptionSettings,
    prompt: str,
    batch_size: int,
    progress: Progress | None,
) -> AudioEventsRun:
    t0 = time.perf_counter()
    todo = [(cid, a) for cid, a in clips if a.size >= MIN_CLIP_SECONDS * SAMPLE_RATE]
    step = max(1, batch_size)
    for i in range(0, len(todo), step):
        batch = todo[i : i + step]
        texts = model.describe_batch([a for _, a in batch], prompt, settings.audio_max_new_tokens)
        for (cid, _), text in zip(batch, texts, strict=True):
            run.descriptions[cid] = text
            run.events[cid] = parse_events(text)
        run.clips_described += len(batch)
        if progress:
            progress("audio-event clips", run.clips_described, len(todo))
    run.seconds = time.perf_counter() - t0
    return run
