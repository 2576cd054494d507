"""The Tool entries the registry will merge: schemas generated from the argument models, and an
import that stays light (engines load only when a tool runs)."""

from __future__ import annotations

import subprocess
import sys

from playscout.tools.registry import PERCEPTION_TOOLS, UTILITY_TOOLS


def test_names_and_schemas() -> None:
    tools = PERCEPTION_TOOLS + UTILITY_TOOLS
    assert sorted(t.name for t in tools) == sorted(
        [
            "extract_scene_text",
            "transcribe_speech",
            "detect_audio_events",
            "calculator",
            "memory",
        ]
    )
    for tool in tools:
        fn = tool.schema()["function"]
        assert fn["name"] == tool.name and len(fn["description"]) > 40
        assert fn["parameters"]["additionalProperties"] is False
    params = {t.name: t.schema()["function"]["parameters"] for t in tools}
    assert params["extract_scene_text"]["required"] == ["video_ids"]
    assert set(params["extract_scene_text"]["properties"]) == {"video_ids", "times", "engine"}
    assert set(params["transcribe_speech"]["properties"]) == {"video_ids", "language"}
    assert set(params["detect_audio_events"]["properties"]) == {"video_ids", "query"}
    assert params["calculator"]["required"] == ["expression"]
    assert params["memory"]["properties"]["action"]["enum"] == ["write", "read", "list", "delete"]


def test_import_does_not_load_engines() -> None:
    code = (
        "import sys, playscout.tools.perception; "
        "heavy = {'av', 'torch', 'transformers', 'faster_whisper', 'rapidocr_onnxruntime', "
        "'pytesseract', 'cv2', 'PIL'}; print(sorted(heavy & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
