"""Errors of the video indexer. Each is one line that names the file and says what to do; the
pipeline raises them before anything is written to the corpus."""

from __future__ import annotations


class VideoError(ValueError):
    """Base: a video (or its play-by-play) that cannot be indexed."""


class BrokenVideoError(VideoError):
    """The file is missing, not a video, truncated or has no decodable video stream."""


class NoScoreboardError(VideoError):
    """No on-screen scoreboard/clock could be located or read, so events cannot be aligned."""


class PlayByPlayMismatchError(VideoError):
    """The play-by-play does not describe this video (other teams, scores or clock never seen)."""


class PlayByPlayError(VideoError):
    """The play-by-play file is malformed (not JSON, missing fields, bad clock values)."""
