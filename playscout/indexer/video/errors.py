"""Errors of the video indexer. Each is one line that names the file and says what to do; the
pipeline raises them before anything is written to the corpus."""

from __future__ import annotations

from playscout.media.errors import BrokenVideoError, VideoError

__all__ = ["BrokenVideoError", "NoScoreboardError", "PlayByPlayMismatchError", "VideoError"]


class NoScoreboardError(VideoError):
    """No on-screen scoreboard/clock could be located or read, so events cannot be aligned."""


class PlayByPlayMismatchError(VideoError):
    """The play-by-play does not describe this video (other teams, scores or clock never seen)."""
