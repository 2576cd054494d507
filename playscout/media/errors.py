"""Errors of reading media: one line naming the file and the cause. Tools' messages name the
file, never its directory: they reach the model as observations."""

from __future__ import annotations

from playscout.errors import PlayscoutError


class MediaError(PlayscoutError, ValueError):
    """A file that cannot give what was asked of it (frames, audio, a duration)."""


class AudioError(MediaError):
    """The file cannot give audio (missing, broken, or no audio stream)."""


class NoAudioStreamError(AudioError):
    """The file decodes but has no audio track: "nothing heard", not a broken file."""


class VideoError(MediaError):
    """A video that cannot be read or indexed."""


class BrokenVideoError(VideoError):
    """The file is missing, not a video, truncated or has no decodable video stream."""
