"""Progress as plain lines, for when stderr is not a terminal (a log file, CI, a pipe): a bar
redrawn in place would print nothing until the end there. Each stage prints when it starts,
at most once per `interval` seconds while it runs (count, total, elapsed, ETA), and once when
it finishes, with the time it took; counts carry the stage's rate (items/s)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass


def clock(seconds: float) -> str:
    """`0:01:05`, as rich's elapsed column writes it."""
    whole = int(max(seconds, 0.0))
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def eta(elapsed: float, done: int, total: int | None) -> float | None:
    """Seconds left at the stage's rate so far; None before any progress or without a total."""
    if total is None or done <= 0 or elapsed <= 0:
        return None
    return elapsed * max(total - done, 0) / done


@dataclass
class _Stage:
    started: float
    printed: float
    done: int = 0
    total: int | None = None
    finished: bool = False


class PlainProgress:
    """`update(label, done, total)` as progress_bar's callback, written as lines by `write`."""

    def __init__(
        self,
        write: Callable[[str], None],
        interval: float = 10.0,
        now: Callable[[], float] = time.monotonic,
        amount: Callable[[int], str] = str,
    ) -> None:
        """`amount` writes a count (e.g. as bytes)."""
        self.write, self.interval, self.now, self.amount = write, interval, now, amount
        self.stages: dict[str, _Stage] = {}

    def update(self, label: str, done: int, total: int | None) -> None:
        t = self.now()
        stage = self.stages.get(label)
        if stage is None:
            stage = self.stages[label] = _Stage(started=t, printed=t)
            stage.done, stage.total = done, total
            if not self._finish_if_done(label, stage, t):
                self.write(self._line(label, stage, t))
            return
        if stage.finished:
            return
        stage.done, stage.total = done, total
        if self._finish_if_done(label, stage, t):
            return
        if t - stage.printed >= self.interval:
            stage.printed = t
            self.write(self._line(label, stage, t))

    def close(self) -> None:
        """Finish every open stage as it stands (the block ended without an error)."""
        t = self.now()
        for label, stage in self.stages.items():
            if not stage.finished:
                stage.total = stage.done
                self._finish_if_done(label, stage, t)

    def _finish_if_done(self, label: str, stage: _Stage, t: float) -> bool:
        if stage.total is None or stage.done < stage.total:
            return False
        stage.finished = True
        shown = f"{self.amount(stage.done)}/{self.amount(stage.total)}"
        elapsed = t - stage.started
        self.write(f"{label}: {shown} done in {clock(elapsed)}{self._rate(stage.done, elapsed)}")
        return True

    def _rate(self, done: int, elapsed: float) -> str:
        """', 1,234/s': each stage's rate, so a slow stage of a pipeline shows as slow."""
        if done <= 0 or elapsed < 1.0 or self.amount is not str:
            return ""  # under a second a rate is noise
        rate = done / elapsed
        return f", {rate:,.0f}/s" if rate >= 10 else f", {rate:.1f}/s"

    def _line(self, label: str, stage: _Stage, t: float) -> str:
        elapsed = t - stage.started
        if stage.total is None:
            return f"{label}: {self.amount(stage.done)} so far, {clock(elapsed)} elapsed"
        share = f" ({100 * stage.done / stage.total:.0f}%)" if stage.total else ""
        left = eta(elapsed, stage.done, stage.total)
        shown = clock(left) if left is not None else "-:--:--"
        return (
            f"{label}: {self.amount(stage.done)}/{self.amount(stage.total)}{share}, "
            f"{clock(elapsed)} elapsed, ETA {shown}{self._rate(stage.done, elapsed)}"
        )
