"""Spoken commentary: one short line per notable event ("Rhodes misses the three."), spoken by
espeak-ng from the event's video time.

Lines are scheduled for the whole game from text-length estimates (a line waits for the previous
one, and is dropped if it would start more than 2 s late), so an excerpt hears exactly what the
full video has. Only the lines an excerpt needs are synthesised, in batches: one espeak-ng call
per ~100 lines, split again on the long pauses placed between them.
"""

from __future__ import annotations

import io
import logging
import shutil
import subprocess
import wave
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape

import numpy as np

from playscout.synthetic.cue import Cue
from playscout.synthetic.sports import SPECS

log = logging.getLogger(__name__)

ESPEAK = "/usr/bin/espeak-ng"
SAMPLE_RATE = 22050  # espeak-ng's native rate; the AAC track uses it too
MAX_DELAY = 2.0
GAP = 0.2
_BATCH = 100
_PAUSE_MS = 1500
_CACHE: OrderedDict[str, np.ndarray] = OrderedDict()
_CACHE_MAX = 4000


@dataclass(frozen=True, slots=True)
class Line:
    t0: float  # game time the line starts
    t1: float  # latest end (estimated length; longer audio is cut there)
    event_id: int
    text: str


def line_text(sport: str, ev: dict[str, Any]) -> str | None:
    """The commentator's line for an event, or None for routine plays (passes, rebounds...):
    the sport's own phrasing (SportSpec.talk), read through a Cue."""
    talk = SPECS[sport].talk
    return talk.line(Cue(ev, talk))


def estimate(text: str) -> float:
    """Generous spoken length at 170 words/min (espeak-ng measures ~0.06-0.08 s a character)."""
    return 0.35 + 0.08 * len(text) + 0.15 * sum(text.count(c) for c in ",.!?")


def plan_lines(sport: str, events: list[dict[str, Any]]) -> list[Line]:
    """Lines for the whole game: start at the event, queue behind the previous line, drop if late."""
    out: list[Line] = []
    free = -1.0
    for ev in events:
        text = line_text(sport, ev)
        if text is None:
            continue
        t = float(ev["video_time"])
        start = max(t, free + GAP)
        if start - t > MAX_DELAY:
            continue
        end = start + estimate(text)
        out.append(Line(round(start, 3), round(end, 3), int(ev["event_id"]), text))
        free = end
    return out


def available() -> bool:
    return shutil.which(ESPEAK) is not None or shutil.which("espeak-ng") is not None


def _run(args: list[str], data: bytes | None = None) -> np.ndarray:
    exe = ESPEAK if shutil.which(ESPEAK) else "espeak-ng"
    res = subprocess.run(
        [exe, "--stdout", "-s", "170", *args], input=data, capture_output=True, check=True
    )
    raw = res.stdout
    k = raw.find(b"data")
    if raw[:4] == b"RIFF" and k >= 0:
        pcm = raw[k + 8 :]
    else:  # pragma: no cover - unexpected container, let wave parse it
        with wave.open(io.BytesIO(raw)) as w:
            pcm = w.readframes(w.getnframes())
    return np.frombuffer(pcm[: len(pcm) // 2 * 2], dtype="<i2").astype(np.float32) / 32768.0


def _trim(x: np.ndarray) -> np.ndarray:
    loud = np.flatnonzero(np.abs(x) > 0.002)
    if loud.size == 0:
        return x[:0]
    pad = int(0.04 * SAMPLE_RATE)
    return x[max(0, loud[0] - pad) : loud[-1] + pad]


def _split(x: np.ndarray, n: int) -> list[np.ndarray] | None:
    """Cut a batch at pauses of at least a second; None when the count does not come out."""
    quiet = np.abs(x) <= 0.002
    min_gap = int(1.0 * SAMPLE_RATE)
    edges = np.flatnonzero(np.diff(np.concatenate(([1], quiet.view(np.int8), [1]))))
    # edges alternate: start of a loud run, end of a loud run
    runs = edges.reshape(-1, 2) if edges.size % 2 == 0 else None
    if runs is None or len(runs) == 0:
        return None
    groups: list[list[int]] = [[int(runs[0][0]), int(runs[0][1])]]
    for a, b in runs[1:]:
        if a - groups[-1][1] >= min_gap:
            groups.append([int(a), int(b)])
        else:
            groups[-1][1] = int(b)
    if len(groups) != n:
        return None
    pad = int(0.04 * SAMPLE_RATE)
    return [x[max(0, a - pad) : b + pad] for a, b in groups]


def _batch(texts: list[str]) -> list[np.ndarray]:
    """One espeak-ng call for many lines; espeak now and then drops a pause, so a batch whose
    pieces do not come out one per line is halved and retried."""
    if len(texts) == 1:
        return [_trim(_run([texts[0]]))]
    ssml = (
        "<speak>" + "".join(f'{escape(t)}<break time="{_PAUSE_MS}ms"/>' for t in texts) + "</speak>"
    )
    parts = _split(_run(["-m"], ssml.encode()), len(texts))
    if parts is not None:
        return parts
    mid = len(texts) // 2
    return _batch(texts[:mid]) + _batch(texts[mid:])


def synthesize(texts: list[str]) -> dict[str, np.ndarray]:
    """Mono float32 speech at SAMPLE_RATE for each distinct text (cached across calls)."""
    out = {t: _CACHE[t] for t in texts if t in _CACHE}
    todo = [t for t in dict.fromkeys(texts) if t not in out]
    for i in range(0, len(todo), _BATCH):
        chunk = todo[i : i + _BATCH]
        for t, clip in zip(chunk, _batch(chunk), strict=True):
            out[t] = _CACHE[t] = clip
            if len(_CACHE) > _CACHE_MAX:
                _CACHE.popitem(last=False)
    return out
