"""Media: the only layer that opens a video or audio file (PyAV, imported lazily)."""

from playscout.media.audio import SAMPLE_RATE, decode_reason, load_audio
from playscout.media.errors import (
    AudioError,
    BrokenVideoError,
    MediaError,
    NoAudioStreamError,
    VideoError,
)
from playscout.media.frames import (
    IMAGE_SUFFIXES,
    SampledFrame,
    clip_duration,
    sample_arrays,
    sample_frames,
    sample_frames_timed,
)
from playscout.media.overlay import draw_box
from playscout.media.probe import VideoInfo, probe_video
from playscout.media.timed_frames import TimedFrame, even_times, frames_at, jpeg_at, thumbnail

__all__ = [
    "IMAGE_SUFFIXES",
    "SAMPLE_RATE",
    "AudioError",
    "BrokenVideoError",
    "MediaError",
    "NoAudioStreamError",
    "SampledFrame",
    "TimedFrame",
    "VideoError",
    "VideoInfo",
    "clip_duration",
    "decode_reason",
    "draw_box",
    "even_times",
    "frames_at",
    "jpeg_at",
    "load_audio",
    "probe_video",
    "sample_arrays",
    "sample_frames",
    "sample_frames_timed",
    "thumbnail",
]
