"""Plain-line progress (stderr not a terminal): a line when a stage starts, at most one per
interval while it runs, with its total and an ETA at the rate so far, one when it finishes
with the time the stage took (not the time since the command started)."""

from __future__ import annotations

from playscout.cli.plain_progress import PlainProgress, clock, eta


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_lines_are_rate_limited_and_carry_total_and_eta() -> None:
    lines: list[str] = []
    now = Clock()
    progress = PlainProgress(lines.append, interval=10.0, now=now)
    progress.update("basketball clips", 0, 300)
    now.t += 4
    progress.update("basketball clips", 100, 300)  # within the interval: no line
    now.t += 8
    progress.update("basketball clips", 150, 300)
    now.t += 3
    progress.update("basketball clips", 300, 300)
    progress.update("basketball clips", 300, 300)  # finished stages stay quiet
    assert lines == [
        "basketball clips: 0/300 (0%), 0:00:00 elapsed, ETA -:--:--",
        "basketball clips: 150/300 (50%), 0:00:12 elapsed, ETA 0:00:12, 12/s",
        "basketball clips: 300/300 done in 0:00:15, 20/s",
    ]


def test_stage_clock_starts_with_the_stage() -> None:
    lines: list[str] = []
    now = Clock()
    progress = PlainProgress(lines.append, now=now)
    progress.update("synth", 3, 3)
    now.t += 60  # a later stage's clock does not count what came before it
    progress.update("documents", 0, 80)
    now.t += 7
    progress.update("documents", 80, 80)
    assert lines[-1] == "documents: 80/80 done in 0:00:07, 11/s"


def test_close_finishes_open_stages_and_amounts_can_be_bytes() -> None:
    lines: list[str] = []
    progress = PlainProgress(lines.append, now=Clock(), amount=lambda n: f"{n} B")
    progress.update("download", 10, None)
    progress.close()
    assert lines == [
        "download: 10 B so far, 0:00:00 elapsed",
        "download: 10 B/10 B done in 0:00:00",
    ]


def test_clock_and_eta() -> None:
    assert clock(3725.9) == "1:02:05"
    assert eta(10.0, 25, 100) == 30.0
    assert eta(10.0, 0, 100) is None and eta(10.0, 5, None) is None
