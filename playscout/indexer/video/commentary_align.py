"""Place events the scoreboard cannot separate by what the commentator says.

Several events can share one on-screen state: missed free throws during a stopped clock show
the same period, clock and score from the whistle to the next restart. The scoreboard bounds
them to that interval; the commentary names the player and the action, so the utterance inside
the interval that matches the event's words (SVI-Bench aligns commentary by "timestamp matching
and textual cues") gives its time. Events without a matching utterance keep the aligner's
estimate and stay `ambiguous`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rapidfuzz import fuzz, process

from playscout.corpus.pbp import PbpEvent, PbpGame

PAUSE_S = 0.6  # a silence this long separates two commentary lines
MIN_ACTION = 0.6  # share of the event's action words (type) the utterance must contain
OTHER_NAME = 85.0  # a heard word this close to another player's surname names that player
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset({"the", "a", "an", "of", "by", "for", "to", "and", "on", "in", "pt"})


@dataclass(frozen=True, slots=True)
class Utterance:
    start: float
    end: float
    keys: frozenset[str]
    words: tuple[str, ...]


def _keys(text: str) -> set[str]:
    """Word stems cut to four letters, so 'misses' matches 'missed' and 'throws' 'throw'."""
    return {w[:4] for w in _WORD.findall(text.lower()) if w not in _STOP}


def utterances(words: Sequence[Any]) -> list[Utterance]:
    """Words (with .start, .end, .text) grouped into lines at pauses of PAUSE_S or more."""
    out: list[Utterance] = []
    group: list[Any] = []
    for w in sorted(words, key=lambda w: w.start):
        if group and w.start - group[-1].end >= PAUSE_S:
            out.append(_utterance(group))
            group = []
        group.append(w)
    if group:
        out.append(_utterance(group))
    return out


def _utterance(group: list[Any]) -> Utterance:
    text = " ".join(w.text for w in group)
    return Utterance(
        float(group[0].start),
        float(group[-1].end),
        frozenset(_keys(text)),
        tuple(_WORD.findall(text.lower())),
    )


def _score(ev: PbpEvent, utt: Utterance, others: frozenset[str]) -> float:
    """0 unless the line names the action and does not name another player of the game;
    else the share of action words heard plus how close the heard words come to the player's
    surname (a ranking hint only: Whisper writes 'Wanda' for 'Warner', 'Thomas' for 'Torres')."""
    action = _keys(ev.type)
    heard = len(action & utt.keys) / len(action) if action else 0.0
    if heard < MIN_ACTION:
        return 0.0
    surname = ev.player.split()[-1].lower() if ev.player else ""
    name = max((fuzz.ratio(surname, w) for w in utt.words), default=0.0) if surname else 0.0
    for word in utt.words:
        rival = process.extractOne(word, others, scorer=fuzz.ratio) if others else None
        if rival is not None and rival[1] >= OTHER_NAME and rival[1] > fuzz.ratio(surname, word):
            return 0.0
    return heard + name / 100.0


def _surnames(game: PbpGame) -> set[str]:
    names = {p.name for p in game.players} | {e.player for e in game.events if e.player}
    return {n.split()[-1].lower() for n in names if n.strip()}


def _interval(timeline: Any, ev: PbpEvent) -> tuple[float, float] | None:
    spans = [
        (s.t_start, s.t_end)
        for s in timeline.segments
        if (s.state.period, s.state.clock, s.state.home, s.state.away)
        == (ev.period, ev.clock_seconds, ev.home_score, ev.away_score)
    ]
    if not spans:
        return None
    return min(a for a, _ in spans), max(b for _, b in spans)


def refine_with_commentary(
    alignment: Any, timeline: Any, game: PbpGame, words: Sequence[Any]
) -> Any:
    """A copy of `alignment` where ambiguous events matched to a commentary line inside their
    on-screen interval take that line's start time (status aligned, reason says so)."""
    lines = utterances(words)
    if not lines:
        return alignment
    by_id = {e.event_id: e for e in game.events}
    # the first event of a state stopped the clock: the screen already dates it
    first_of_state: dict[tuple[int, int, int, int], int] = {}
    for e in game.events:
        first_of_state.setdefault(
            (e.period, e.clock_seconds, e.home_score, e.away_score), e.event_id
        )
    surnames = _surnames(game)
    result = alignment.model_copy(deep=True)
    last_used = -1.0
    for placed in result.events:
        ev = by_id.get(placed.event_id)
        if placed.status != "ambiguous" or ev is None:
            continue
        key = (ev.period, ev.clock_seconds, ev.home_score, ev.away_score)
        if first_of_state[key] == ev.event_id:
            continue
        span = _interval(timeline, ev)
        if span is None:
            continue
        own = ev.player.split()[-1].lower() if ev.player else ""
        others = frozenset(surnames - {own})
        lo, hi = span[0] - 0.5, span[1] + 0.5
        best: tuple[float, Utterance] | None = None
        for utt in lines:
            if utt.start < lo or utt.start > hi or utt.start <= last_used:
                continue
            score = _score(ev, utt, others)
            if score > 0 and (best is None or score > best[0]):
                best = (score, utt)
        if best is None:
            continue
        utt = best[1]
        placed.video_time = round(utt.start, 3)
        placed.status = "aligned"
        placed.reason = f"commentary line at {utt.start:.1f} s inside the stopped-clock interval"
        last_used = utt.start
    counts: dict[str, int] = {}
    for placed in result.events:
        counts[placed.status] = counts.get(placed.status, 0) + 1
    result.counts = counts
    return result
