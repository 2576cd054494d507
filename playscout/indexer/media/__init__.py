"""Media access for tools that look at pixels (video_qa frames)."""

from playscout.indexer.media.frames import IMAGE_SUFFIXES, MediaError, sample_frames

__all__ = ["IMAGE_SUFFIXES", "MediaError", "sample_frames"]
