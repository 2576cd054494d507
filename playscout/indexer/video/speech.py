"""Commentary speech of a whole game, cut into the clip windows.

Whisper runs ONCE over the game's audio (not per clip): it needs context longer than a clip, a
clip cut mid-word would lose that word, and one pass costs one model warm-up. Words carry their
own timestamps, so each lands in the window holding its midpoint and a sentence spanning a cut
is split where the cut is, not where Whisper's segment ends."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from playscout.config import PerceptionSettings
from playscout.media.audio import SAMPLE_RATE, AudioError, NoAudioStreamError, load_audio
from playscout.media.errors import BrokenVideoError, VideoError
from playscout.perception.asr import whisper_model
from playscout.perception.errors import EngineUnavailable

Progress = Callable[[str, int, int | None], None]


class Span(Protocol):
    """A clip window (e.g. video.cut.Window): clip id and [start, end) in game-video seconds."""

    @property
    def clip_id(self) -> str: ...
    @property
    def start(self) -> float: ...
    @property
    def end(self) -> float: ...


Window = tuple[str, float, float] | Span  # (clip_id, start, end) or an object with those fields
AudioSource = str | Path | np.ndarray  # a file, or 16 kHz mono float32 already decoded


class ModelUnavailableError(VideoError):
    """A perception model that is configured (or needed) cannot be loaded: one line, what to do."""


class Timed(Protocol):
    """Anything with a time span and text: a Word, or a Segment of the transcribe_speech tool."""

    @property
    def start(self) -> float: ...
    @property
    def end(self) -> float: ...
    @property
    def text(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Word:
    start: float  # seconds from the start of the audio
    end: float
    text: str  # as Whisper wrote it, punctuation attached


@dataclass
class GameSpeech:
    """Words of one game plus what it cost, so indexing reports can show a real-time factor."""

    words: list[Word]
    model: str
    language: str | None
    audio_seconds: float
    seconds: float  # wall time of decode + ASR

    @property
    def real_time_factor(self) -> float:
        return self.seconds / self.audio_seconds if self.audio_seconds else 0.0


def decode_game_audio(source: AudioSource) -> np.ndarray:
    """16 kHz mono float32 of a file (empty when it has no audio track) or the array itself.

    A whole game is decoded at once (about 230 MB per hour): Whisper and the audio-event model
    both need random access to it, and decoding twice would cost more than the memory."""
    if isinstance(source, np.ndarray):
        return np.asarray(source, dtype=np.float32).reshape(-1)
    try:
        return load_audio(source, SAMPLE_RATE)
    except NoAudioStreamError:
        return np.zeros(0, dtype=np.float32)
    except AudioError as e:
        raise BrokenVideoError(str(e)) from None


def transcribe_game(
    audio_or_video_path: AudioSource,
    settings: PerceptionSettings,
    *,
    language: str | None = "en",
    progress: Progress | None = None,
) -> list[Word]:
    """Word-timestamped transcript of a whole game (VAD per settings.asr_vad_filter)."""
    return transcribe_game_run(
        audio_or_video_path, settings, language=language, progress=progress
    ).words


def transcribe_game_run(
    audio_or_video_path: AudioSource,
    settings: PerceptionSettings,
    *,
    language: str | None = "en",
    progress: Progress | None = None,
) -> GameSpeech:
    """transcribe_game with the model name, detected language and timing."""
    t0 = time.perf_counter()
    audio = decode_game_audio(audio_or_video_path)
    seconds = audio.size / SAMPLE_RATE
    try:
        model, label = whisper_model(settings)
    except EngineUnavailable as e:
        raise ModelUnavailableError(str(e)) from None
    if language and language != "en" and not model.model.is_multilingual:
        raise ModelUnavailableError(
            f"the speech model ({label}) is English-only and cannot transcribe {language!r}; "
            "set PLAYSCOUT_PERCEPTION__ASR_MODEL_DIR to a multilingual Whisper model"
        )
    if audio.size == 0:
        return GameSpeech([], label, language, 0.0, time.perf_counter() - t0)
    segments, info = model.transcribe(
        audio,
        language=language or None,
        beam_size=settings.asr_beam_size,
        vad_filter=settings.asr_vad_filter,
        word_timestamps=True,
        # Commentary is a stream of short independent calls; conditioning on the previous
        # text is what makes Whisper loop on long audio.
        condition_on_previous_text=False,
    )
    words: list[Word] = []
    total = int(seconds)
    for seg in segments:
        parts = seg.words or []
        if not parts and seg.text.strip():  # no word timing: keep the segment as one unit
            words.append(Word(round(seg.start, 3), round(seg.end, 3), seg.text.strip()))
        words += [
            Word(round(w.start, 3), round(w.end, 3), w.word.strip())
            for w in parts
            if w.word.strip()
        ]
        if progress:
            progress("speech seconds", min(int(seg.end), total), total)
    return GameSpeech(words, label, info.language, seconds, time.perf_counter() - t0)


def window_spans(windows: Sequence[Window]) -> list[tuple[str, float, float]]:
    return [w if isinstance(w, tuple) else (w.clip_id, w.start, w.end) for w in windows]


def assign_to_windows(segments: Sequence[Timed], windows: Sequence[Window]) -> dict[str, str]:
    """Text of each window: the words whose midpoint lies in [start, end), in time order.

    Every window gets an entry ("" when silent). Where windows overlap, a word goes to each one
    holding it (both clips contain that audio); words in gaps between windows belong to none.
    A window with end <= start (e.g. the -1 of an unaligned clip) gets nothing."""
    spans = window_spans(windows)
    out = {cid: "" for cid, _, _ in spans}
    items = [s for s in segments if s.text.strip()]
    if not items or not spans:
        return out
    mids = np.asarray([(s.start + s.end) / 2.0 for s in items], dtype=np.float64)
    order = np.argsort(mids, kind="stable")
    sorted_mids = mids[order]
    for cid, start, end in spans:
        if not end > start:
            continue
        lo = int(np.searchsorted(sorted_mids, start, side="left"))
        hi = int(np.searchsorted(sorted_mids, end, side="left"))
        if hi > lo:
            text = " ".join(items[int(i)].text.strip() for i in order[lo:hi])
            out[cid] = f"{out[cid]} {text}".strip() if out[cid] else text
    return out
