"""extract_scene_text on a real h264 clip with a rendered scoreboard, with both OCR engines."""

from __future__ import annotations

import re
import time

import pytest

from playscout.perception.errors import EngineUnavailable
from playscout.perception.ocr import lines as ocr
from playscout.tools.perception.scene_text import ExtractSceneTextArgs, extract_scene_text
from playscout.tools.registry import PERCEPTION_TOOLS, call_tool
from playscout.tools.tool import ToolContext
from tests.media.samples import MediaCorpus

TOOLS = {t.name: t for t in PERCEPTION_TOOLS}


def _norm(text: str) -> str:
    return re.sub(r"\s+", "", text).upper()


def _has_scoreboard(texts: list[str]) -> bool:
    joined = _norm(" ".join(texts))
    return "ARS2-1CHE" in joined and "67:12" in joined


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["tesseract", "ppocr"])
def test_reads_score_and_clock(ctx: ToolContext, media_corpus: MediaCorpus, engine: str) -> None:
    args = ExtractSceneTextArgs(video_ids=[media_corpus.board], engine=engine, times=[0.5, 2.0])
    t0 = time.perf_counter()
    result = extract_scene_text(ctx, args)
    elapsed = time.perf_counter() - t0
    data = result.data
    clip = data.clips[0]
    assert data.engine == engine and clip.error is None
    assert clip.frame_times == [0.6, 2.0]
    assert _has_scoreboard([ln.text for ln in clip.lines]), result.observation
    # identical lines across the two frames are merged, with both times kept
    assert len(clip.lines) == len({_norm(ln.text) for ln in clip.lines})
    assert all(ln.times == [0.6, 2.0] for ln in clip.lines)
    assert all(0.5 <= ln.confidence <= 1.0 for ln in clip.lines)
    assert "67:12" in result.observation and "all frames" in result.observation
    print(f"\n{engine}: {data.ms_per_frame} ms/frame (call {elapsed * 1000:.0f} ms, 2 frames)")


@pytest.mark.slow
def test_auto_prefers_ppocr_and_registry_call_parses_json(
    ctx: ToolContext, media_corpus: MediaCorpus
) -> None:
    raw = f'{{"video_ids": "{media_corpus.board}", "timestamp": 1.0}}'
    result = call_tool(TOOLS, ctx, "extract_scene_text", raw)
    assert result.error is None, result.observation
    assert result.data.engine == "ppocr"
    assert result.data.clips[0].frame_times == [1.0]


def test_missing_engines_are_named(
    ctx: ToolContext, media_corpus: MediaCorpus, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(ocr, "ppocr_available", lambda: False)
    with pytest.raises(EngineUnavailable, match=r"pip install 'playscout\[perception\]'"):
        ocr.choose_engine("ppocr")
    monkeypatch.setattr(ocr, "tesseract_available", lambda: False)
    with pytest.raises(EngineUnavailable, match="apt-get install tesseract-ocr tesseract-ocr-eng"):
        ocr.choose_engine("tesseract")
    with pytest.raises(EngineUnavailable, match="no OCR engine is installed"):
        ocr.choose_engine("auto")


def test_auto_falls_back_to_tesseract_loudly(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(ocr, "ppocr_available", lambda: False)
    assert ocr.choose_engine("auto") == "tesseract"


@pytest.mark.slow
def test_fallback_note_in_observation(
    ctx: ToolContext, media_corpus: MediaCorpus, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(ocr, "ppocr_available", lambda: False)
    result = extract_scene_text(
        ctx, ExtractSceneTextArgs(video_ids=[media_corpus.board], times=[1])
    )
    assert result.data.engine == "tesseract"
    assert "note: PP-OCR is not installed; read with tesseract" in result.observation


def test_broken_file_is_one_line_error(ctx: ToolContext, media_corpus: MediaCorpus) -> None:
    result = call_tool(TOOLS, ctx, "extract_scene_text", {"video_ids": [media_corpus.broken]})
    assert result.error is not None and "\n" not in result.observation
    assert result.observation.startswith(f"Error: clip {media_corpus.broken}: ")
    assert "cannot decode video" in result.observation


@pytest.mark.slow
def test_one_bad_clip_does_not_hide_the_good_one(
    ctx: ToolContext, media_corpus: MediaCorpus
) -> None:
    args = ExtractSceneTextArgs(
        video_ids=[media_corpus.board, media_corpus.missing], times=[1.0], engine="ppocr"
    )
    result = extract_scene_text(ctx, args)
    good, bad = result.data.clips
    assert _has_scoreboard([ln.text for ln in good.lines])
    assert bad.error is not None and "file not found" in bad.error
    assert f"clip {media_corpus.missing}: error: " in result.observation


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"video_ids": ["nope_1"]}, "no video file for clip 'nope_1' (unknown game id 'nope'"),
        ({"video_ids": ["400000_9999"]}, "no video file for clip '400000_9999' in the basketball"),
        ({"video_ids": ["no-underscore"]}, "is not '<game_id>_<index>'"),
        ({"video_ids": []}, "invalid argument video_ids"),
        ({"video_ids": ["1_1"], "times": [-1]}, "0 or more"),
        ({"video_ids": ["1_1"], "engine": "easyocr"}, "invalid argument engine"),
        ({"video_ids": [f"1_{i}" for i in range(9)]}, "at most 8 per call"),
        ({"video_ids": ["1_1"], "path": "/etc/passwd"}, "invalid argument path"),
    ],
)
def test_bad_arguments(ctx: ToolContext, raw: dict, message: str) -> None:  # type: ignore[type-arg]
    result = call_tool(TOOLS, ctx, "extract_scene_text", raw)
    assert result.error is not None and message in result.observation


def test_no_corpus_is_an_error(ctx: ToolContext, media_corpus: MediaCorpus) -> None:
    ctx.corpus = None
    result = call_tool(TOOLS, ctx, "extract_scene_text", {"video_ids": [media_corpus.board]})
    assert result.observation == "Error: no media corpus is configured, so clips cannot be opened"
