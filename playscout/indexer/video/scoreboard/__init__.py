"""ASAP-style scoreboard reading and play-by-play alignment (the ASAP paper, §3.1-3.3).

`read_scoreboard` locates the on-screen scoreboard, reads it at a few frames per second and
returns a monotone match-state timeline; `align_events` places each play-by-play event on the
video by the state the scoreboard shows; `evaluate_alignment` scores both against a renderer's
ground truth.
"""

from playscout.indexer.video.scoreboard.align import RESTART_TYPES, StoppageModel, align_events
from playscout.indexer.video.scoreboard.evaluate import evaluate_alignment
from playscout.indexer.video.scoreboard.models import (
    AlignmentResult,
    ClockSpan,
    EventAlignment,
    ReaderStats,
    Reading,
    ScoreboardLayout,
    Segment,
    StateTimeline,
)
from playscout.indexer.video.scoreboard.reader import read_scoreboard

__all__ = [
    "RESTART_TYPES",
    "AlignmentResult",
    "ClockSpan",
    "EventAlignment",
    "ReaderStats",
    "Reading",
    "ScoreboardLayout",
    "Segment",
    "StateTimeline",
    "StoppageModel",
    "align_events",
    "evaluate_alignment",
    "read_scoreboard",
]
