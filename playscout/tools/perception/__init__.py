"""STARAgent's perception tools (scene text, speech, audio events) as `Tool` entries for the
registry: thin adapters over the engines in `playscout.perception`.

Heavy dependencies (PyAV, OCR engines, faster-whisper, transformers) import lazily inside the
tools, so importing this package costs nothing and a missing engine is a one-line error when
the tool is called."""

from playscout.tools.perception.audio_events import DetectAudioEventsArgs, detect_audio_events
from playscout.tools.perception.scene_text import ExtractSceneTextArgs, extract_scene_text
from playscout.tools.perception.speech import TranscribeSpeechArgs, transcribe_speech
from playscout.tools.tool import Tool

PERCEPTION_TOOLS: tuple[Tool, ...] = (
    Tool(
        "extract_scene_text",
        "Read on-screen text (scoreboard score and game clock, player names, captions) in video "
        "clips by OCR. Give clip ids and optionally seconds into the clip; returns each text "
        "line once with the frame times it was seen and a confidence.",
        ExtractSceneTextArgs,
        extract_scene_text,
        reads_media=True,
    ),
    Tool(
        "transcribe_speech",
        "Transcribe the commentary or speech in video clips (Whisper). Returns time-stamped "
        "segments per clip, or 'no speech' when the audio is only crowd noise or music.",
        TranscribeSpeechArgs,
        transcribe_speech,
        reads_media=True,
    ),
    Tool(
        "detect_audio_events",
        "Describe the non-speech sounds of video clips (crowd, whistle, buzzer, horn, music, "
        "impacts) with an audio-language model; optionally ask a specific question about them.",
        DetectAudioEventsArgs,
        detect_audio_events,
        reads_media=True,
    ),
)

__all__ = [
    "PERCEPTION_TOOLS",
    "DetectAudioEventsArgs",
    "ExtractSceneTextArgs",
    "TranscribeSpeechArgs",
    "detect_audio_events",
    "extract_scene_text",
    "transcribe_speech",
]
