"""Read the scoreboard of a whole video into a match-state timeline (ASAP §3.2).

Per sampled frame (default 5 fps) only the scoreboard box is touched, on the luma plane:
  1. reject it when its static pixels (box background outside the text rows) differ from the
     reference template: a commercial, a hidden scoreboard, a sponsor banner sliding over it;
  2. skip it when its text rows are unchanged since the last OCR'd frame (changed-pixel count,
     robust to compression noise where a plain mean would blur one digit into nothing);
  3. otherwise cut the text into words and OCR only the words that changed (usually just the
     clock), batched across frames.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from playscout.corpus.match_state import MatchState, board
from playscout.corpus.sports import UnknownSport
from playscout.indexer.video.scoreboard.glyphs import GlyphBank
from playscout.indexer.video.scoreboard.layout import (
    ink_mask,
    normalise,
    read_clock,
    read_code,
    read_period,
    read_score,
    words,
)
from playscout.indexer.video.scoreboard.locate import Located, locate
from playscout.indexer.video.scoreboard.models import ReaderStats, Reading, StateTimeline
from playscout.indexer.video.scoreboard.timeline import build_timeline
from playscout.media.errors import BrokenVideoError, VideoError
from playscout.media.luma import decode_errors, frame_time, luma, open_video
from playscout.perception.ocr import get_engine

_BATCH = 32  # OCR jobs per recogniser flush
_DIFF = 48  # luma change that counts a pixel as changed
_CHANGED_PX = 6  # changed pixels that make a text crop "changed"

Progress = Callable[[float, float], None]


class _Reader:
    """Frame-by-frame state of the read: the last OCR'd crops and the pending OCR batch."""

    def __init__(
        self, loc: Located, sport: str, engine: str, stats: ReaderStats, glyphs: bool = True
    ) -> None:
        self.loc = loc
        self.sport = sport
        self.rec = get_engine(engine)
        self.stats = stats
        lay = loc.layout
        self.r0, self.r1 = lay.text_rows
        self.tmpl = loc.template.astype(np.int16)
        self.static = loc.static
        ink = float(np.percentile(self.tmpl[self.r0 : self.r1], 99))
        self.dev = max(24.0, 0.35 * abs(ink - lay.background))
        self.static_cols = self.static.any(axis=0)
        self.last_text: np.ndarray | None = None  # text rows of the last OCR'd frame
        self.last_fields: list[str | int] | None = None
        self.word_cache: list[tuple[int, int, np.ndarray, str | int]] = []
        self.jobs: list[tuple[np.ndarray, np.ndarray, str]] = []  # (word crop, ink, field)
        contrast = abs(lay.ink_threshold - lay.background) * 2
        self.bank = GlyphBank(contrast) if glyphs else None
        self.results: list[str] = []
        self.pending: list[tuple[int, list[str | int]]] = []  # (reading index, field texts/jobs)
        self.readings: list[Reading] = []
        self.ocr_seconds = 0.0

    # --------------------------------------------------------------- per frame
    def frame(self, t: float, y: np.ndarray) -> None:
        b = self.loc.layout.box
        crop = y[b.y0 : b.y1, b.x0 : b.x1].astype(np.int16)
        off = np.abs(crop - self.tmpl) > self.dev
        bad = off & self.static
        share = bad.sum() / max(1, self.static.sum())
        if share > 0.5:
            self.stats.crops_occluded += 1
            self._add(t, None, "hidden")
            return
        text = crop[self.r0 : self.r1]
        if (
            self.last_text is not None
            and self.last_fields is not None
            and share < 0.05
            and int((np.abs(text - self.last_text) > _DIFF).sum()) < _CHANGED_PX
        ):
            self.stats.crops_unchanged += 1
            self._add(t, self.last_fields, "ok")
            return
        # partial occlusion: a static column band covered anywhere near the text
        col_bad = bad.sum(axis=0) > 0.3 * self.static.sum(axis=0).clip(min=1)
        if share > 0.05 and col_bad[self.static_cols].any():
            self.stats.crops_occluded += 1
            self._add(t, None, "occluded")
            return
        ink = ink_mask(text, self.loc.layout.ink_threshold, self.loc.polarity) & ~self.loc.deco
        spans = words(ink, self.loc.min_gap, expect=len(self.loc.layout.order))
        if len(spans) != len(self.loc.layout.order):
            self._add(t, None, "unreadable")
            return
        fields: list[str | int] = []
        cache = []
        for k, (a, e) in enumerate(spans):
            word = text[:, a:e]
            hit: str | int | None = None
            if k < len(self.word_cache):
                ca, ce, cw, ctext = self.word_cache[k]
                if ce - ca == e - a and int((np.abs(word - cw) > _DIFF).sum()) < _CHANGED_PX:
                    hit = ctext
                    self.stats.fields_unchanged += 1
            if hit is None and self.bank is not None:
                hit = self.bank.read(word, ink[:, a:e])
                if hit is not None:
                    self.stats.crops_glyph += 1
            if hit is None:
                self.jobs.append((word.astype(np.uint8), ink[:, a:e], self.loc.layout.order[k]))
                hit = len(self.jobs) - 1 + len(self.results)
                self.stats.crops_ocr += 1
            fields.append(hit)
            cache.append((a, e, word, hit))
        self.word_cache = cache
        self.last_text = text
        self.last_fields = fields
        self._add(t, fields, "ok")
        if len(self.jobs) >= _BATCH:
            self.flush()

    def _add(self, t: float, fields: list[str | int] | None, status: str) -> None:
        self.readings.append(Reading(t=round(t, 3), status=status))
        if fields is not None:
            self.pending.append((len(self.readings) - 1, fields))

    def flush(self) -> None:
        """OCR the pending word crops in one batch (and teach the glyph bank their glyphs)."""
        if self.jobs:
            t0 = time.perf_counter()
            texts = self.rec.recognize([w for w, _, _ in self.jobs])
            self.ocr_seconds += time.perf_counter() - t0
            if self.bank is not None:
                for (w, ink, field), text in zip(self.jobs, texts, strict=True):
                    # the glyph's character as its field reads it: a lone 0 score often
                    # comes back as "o", the same glyph in the clock as "0"
                    self.bank.learn(w, ink, normalise(field, text))
            self.results.extend(texts)
            self.jobs = []

    # --------------------------------------------------------------- parsing
    def resolve(self) -> list[Reading]:
        self.flush()
        order = self.loc.layout.order
        memo: dict[tuple[str, ...], MatchState | None] = {}
        for idx, fields in self.pending:
            texts = tuple(f if isinstance(f, str) else self.results[f] for f in fields)
            if texts not in memo:
                memo[texts] = self._parse(dict(zip(order, texts, strict=True)))
            state = memo[texts]
            r = self.readings[idx]
            r.state = state
            if state is None:
                r.status = "unreadable"
        return self.readings

    def _parse(self, f: dict[str, str]) -> MatchState | None:
        lay = self.loc.layout
        if read_code(f["home_code"]) != lay.home_code or read_code(f["away_code"]) != lay.away_code:
            return None  # restyled or half-covered box: the static words must read the same
        period = read_period(self.sport, f["period"])
        clock = read_clock(f["clock"])
        home, away = read_score(f["home_score"]), read_score(f["away_score"])
        if period is None or clock is None or home is None or away is None:
            return None
        return MatchState(period=period, clock=clock, home=home, away=away)


def read_scoreboard(
    video_path: Path | str,
    sport: str,
    *,
    sample_fps: float = 5.0,
    engine: str = "ppocr",
    progress: Progress | None = None,
    glyphs: bool = True,
) -> StateTimeline:
    """Locate the scoreboard, read it at `sample_fps` and return the monotone state timeline.

    `progress(video_seconds_done, video_seconds_total)` is called every 30 s of video;
    `glyphs=False` sends every changed field to the recogniser (no glyph bank), for comparison.
    Raises BrokenVideoError (unreadable file) or NoScoreboardError (nothing to read)."""
    path = Path(video_path)
    try:
        board(sport)
    except UnknownSport as e:
        raise VideoError(str(e)) from None
    stats = ReaderStats()
    t0 = time.perf_counter()
    loc = locate(path, sport, engine=engine)
    t1 = time.perf_counter()
    stats.seconds["locate"] = round(t1 - t0, 3)
    rd = _Reader(loc, sport, engine, stats, glyphs=glyphs)
    step = 1.0 / sample_fps
    with open_video(path) as (container, stream, duration):
        try:
            # B-frames are never needed at 5 fps: skipping them halves decoding when present
            stream.codec_context.skip_frame = "NONREF"
            nxt = 0.0
            last_report = 0.0
            t = 0.0
            tb = float(stream.time_base) if stream.time_base is not None else 0.0
            for frame in container.decode(stream):
                stats.frames_decoded += 1
                # float time base: Fraction arithmetic per frame costs seconds per game
                t = frame.pts * tb if frame.pts is not None and tb else frame_time(frame, stream)
                if t + 1e-6 < nxt:
                    continue
                nxt = max(nxt + step, t + step / 2)
                stats.frames_sampled += 1
                rd.frame(t, luma(frame))
                if progress is not None and t - last_report >= 30.0:
                    last_report = t
                    progress(t, duration)
        except decode_errors() as e:
            raise BrokenVideoError(f"{path}: decoding failed at {t:.1f} s ({e})") from None
    t2 = time.perf_counter()
    ocr_in_loop = rd.ocr_seconds
    readings = rd.resolve()
    t3 = time.perf_counter()
    stats.seconds["decode_scan"] = round(t2 - t1 - ocr_in_loop, 3)
    stats.seconds["ocr"] = round(rd.ocr_seconds, 3)
    stats.seconds["parse"] = round(t3 - t2 - (rd.ocr_seconds - ocr_in_loop), 3)
    if readings and duration <= 0:
        duration = readings[-1].t + step
    timeline = build_timeline(readings, sport=sport, sample_interval=step, duration=duration)
    t4 = time.perf_counter()
    stats.seconds["timeline"] = round(t4 - t3, 3)
    stats.seconds["total"] = round(t4 - t0, 3)
    stats.readings_rejected = timeline.rejected
    if progress is not None:
        progress(duration, duration)
    return StateTimeline(
        video=str(path),
        sport=sport,
        duration=round(duration, 3),
        sample_fps=sample_fps,
        engine=engine,
        layout=loc.layout,
        readings=readings,
        segments=timeline.segments,
        clocks=timeline.clocks,
        stats=stats,
    )
