"""Errors of the video indexer, beside the media errors (`playscout.media.errors`) it also
raises. Each is one line that names the file and says what to do; the pipeline raises them
before anything is written to the corpus."""

from __future__ import annotations

from playscout.media.errors import VideoError


class NoScoreboardError(VideoError):
    """No on-screen scoreboard/clock could be located or read, so events cannot be aligned."""


class PlayByPlayMismatchError(VideoError):
    """The play-by-play does not describe this video (other teams, scores or clock never seen)."""
