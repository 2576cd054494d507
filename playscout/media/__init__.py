"""Media: the only layer that opens a video or audio file (PyAV, imported lazily)."""

from playscout.media.audio import SAMPLE_RATE, decode_reason, load_audio
from playscout.media.errors import (
    AudioError,
    BrokenVideoError,
    MediaError,
    NoAudioStreamError,
    VideoError,
)
from playscout.media.frames import IMAGE_SUFFIXES, clip_duration, sample_frames
from playscout.media.overlay import draw_box
from playscout.media.probe import VideoInfo, probe_video
from playscout.media.timed_frames import TimedFrame, even_times, frames_at

__all__ = [
    "IMAGE_SUFFIXES",
    "SAMPLE_RATE",
    "AudioError",
    "BrokenVideoError",
    "MediaError",
    "NoAudioStreamError",
    "TimedFrame",
    "VideoError",
    "VideoInfo",
    "clip_duration",
    "decode_reason",
    "draw_box",
    "even_times",
    "frames_at",
    "load_audio",
    "probe_video",
    "sample_frames",
]
