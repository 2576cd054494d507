"""STARAgent's perception tools (scene text, speech, audio events), declared for the registry
(tools/declare.py, TOOLS; their view: tools/registry.py, PERCEPTION_TOOLS): thin adapters over
the engines in `playscout.perception`.

Heavy dependencies (PyAV, OCR engines, faster-whisper, transformers) import lazily inside the
tools, so importing this package costs nothing and a missing engine is a one-line error when
the tool is called."""

from playscout.tools.perception.audio_events import DetectAudioEventsArgs, detect_audio_events
from playscout.tools.perception.scene_text import ExtractSceneTextArgs, extract_scene_text
from playscout.tools.perception.speech import TranscribeSpeechArgs, transcribe_speech

__all__ = [
    "DetectAudioEventsArgs",
    "ExtractSceneTextArgs",
    "TranscribeSpeechArgs",
    "detect_audio_events",
    "extract_scene_text",
    "transcribe_speech",
]
