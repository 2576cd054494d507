"""document_qa and video_qa against a real embedded index built from a synthetic corpus."""

from __future__ import annotations

import asyncio
import base64
import io
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from playscout.clients.chat import ImagePart, TextPart
from playscout.clients.openai_chat import OpenAIChatClient
from playscout.config import ModelEndpoint, QASettings
from playscout.corpus.loader import Corpus
from playscout.corpus.models import ClipRecord, DocumentRecord
from playscout.search.backend_api import DocFilter
from playscout.tools.qa import (
    NO_CAPTION_LLM,
    NO_CAPTIONS,
    NO_DOC_LLM,
    NO_VLM,
    DocumentQAArgs,
    QAResult,
    VideoQAArgs,
    document_qa,
    document_qa_async,
    video_qa,
)
from playscout.tools.registry import (
    ALL_TOOLS,
    QA_TOOLS,
    SEARCH_TOOLS,
    call_tool,
    models_from_settings,
)
from playscout.tools.tokens import token_counter
from playscout.tools.tool import ModelSet, ToolContext, ToolError
from tests.clients.fake_openai_server import FakeOpenAIServer, Reply
from tests.doubles import ScriptedChatModel, image_count
from tests.media.videos import write_video
from tests.synthdata import SynthIndex, copy_with_video

SPORT = "basketball"


@pytest.fixture
def fake_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as srv:
        yield srv


def make_ctx(
    synth_index: SynthIndex,
    mode: str = "default",
    models: ModelSet | None = None,
    corpus: Path | None = None,
    **qa: Any,
) -> ToolContext:
    return ToolContext(
        backend=synth_index.backend,
        sport=SPORT,
        mode=mode,  # type: ignore[arg-type]
        qa=QASettings(**qa),
        corpus=Corpus(corpus or synth_index.corpus_dir),
        models=models or ModelSet(),
    )


def doc_of_type(synth_index: SynthIndex, doc_type: str) -> DocumentRecord:
    hits = synth_index.backend.search_documents(
        SPORT, None, DocFilter(doc_types=[doc_type]), top_k=1
    )
    return hits[0].record


def clips(synth_index: SynthIndex) -> list[ClipRecord]:
    return list(synth_index.corpus.iter_clips(SPORT))


def data(result: Any) -> QAResult:
    assert isinstance(result.data, QAResult), result.observation
    return result.data


# ---------------------------------------------------------------- document_qa


def test_extractive_reader_without_a_document_llm(synth_index: SynthIndex) -> None:
    doc = doc_of_type(synth_index, "game_stat_player")
    line = next(x for x in doc.text.splitlines() if x.count(":") == 1 and "points" in x)
    player = line.split(":")[0]
    args = DocumentQAArgs(doc_ids=[doc.doc_id], query=f"How many points did {player} score?")
    result = document_qa(make_ctx(synth_index), args)
    item = data(result).items[0]
    assert NO_DOC_LLM in result.observation
    # the box score's row the question names, under its team's header, as written
    assert item.answer is not None and item.answer.startswith("### ")
    assert item.answer.splitlines()[1:] == [line.strip()]
    assert item.confidence is not None and 0.0 < item.confidence <= 1.0
    assert item.evidence == f"the rows the question names: {player}"
    last = result.observation.splitlines()[-1]
    assert last.startswith(f"{doc.doc_id}: answer=### ") and f" {player}: " in last
    again = data(document_qa(make_ctx(synth_index), args)).items[0]
    assert again.model_dump(exclude={"latency_s"}) == item.model_dump(exclude={"latency_s"})


def test_document_llm_gets_the_whole_document_in_source_order(synth_index: SynthIndex) -> None:
    corpus_dir = synth_index.corpus_dir
    doc = doc_of_type(synth_index, "espn_report")
    source = next(
        d
        for d in Corpus(corpus_dir).game_documents(SPORT, doc.game_id or "")
        if d.doc_id == doc.doc_id
    )
    llm = ScriptedChatModel(model="doc-llm")
    ep = ModelEndpoint(temperature=0.6, max_tokens=321, timeout_s=7.0)
    ctx = make_ctx(synth_index, models=ModelSet(document_llm=llm), document_llm=ep)
    result = document_qa(ctx, DocumentQAArgs(doc_ids=[doc.doc_id], query="Who won the game?"))
    (req,) = llm.requests
    params, tools, prompt = req.params, req.tools, req.prompt
    assert prompt.startswith("You are a helpful assistant. Read the provided document content")
    assert source.text in prompt  # the file as written, not chunks in hit order
    assert "Question: Who won the game?" in prompt and "{{" not in prompt
    assert params is not None and (params.temperature, params.max_tokens, params.timeout_s) == (
        0.6,
        321,
        7.0,
    )
    assert tools is None
    assert result.observation.splitlines()[-1] == (
        f"{doc.doc_id}: answer=saw 0 images (confidence 0.75) evidence: scripted"
    )
    assert "via model doc-llm" in result.observation
    assert data(result).usage.prompt_tokens == 100


def test_document_cut_in_tokens_with_a_note(synth_index: SynthIndex) -> None:
    doc = doc_of_type(synth_index, "game_stat_player")
    total = token_counter().count(doc.text)
    assert total > 256
    llm = ScriptedChatModel()
    ctx = make_ctx(synth_index, models=ModelSet(document_llm=llm), max_document_tokens=256)
    result = document_qa(ctx, DocumentQAArgs(doc_ids=[doc.doc_id], query="points?"))
    prompt = llm.requests[0].prompt
    content = prompt.split("Document Content:\n", 1)[1].split("\n\nQuestion:", 1)[0]
    assert doc.text.startswith(content) and len(content) < len(doc.text)
    assert token_counter().count(content) == 256
    assert f"document cut to its first 256 of {total} tokens" in result.observation


def test_unknown_ids_are_per_id_errors_in_request_order(synth_index: SynthIndex) -> None:
    doc = doc_of_type(synth_index, "espn_report")
    llm = ScriptedChatModel()
    ids = ["999_espn_report", doc.doc_id, "nonsense"]
    result = document_qa(
        make_ctx(synth_index, models=ModelSet(document_llm=llm)),
        DocumentQAArgs(doc_ids=ids, query="q?"),
    )
    items = data(result).items
    assert [i.id for i in items] == ids
    assert items[0].error and "999_espn_report not found" in items[0].error
    assert items[1].error is None and items[1].answer
    lines = result.observation.splitlines()
    assert lines[1].startswith("999_espn_report: error: document 999_espn_report not found")
    assert lines[3].startswith("nonsense: error:")
    assert len(llm.requests) == 1


@pytest.mark.parametrize("mode", ["oracle", "default"])
def test_a_call_whose_ids_all_are_unknown_fails(synth_index: SynthIndex, mode: str) -> None:
    """Invented ids only (seen from a 135M model: "videoplayer_1") are a failed call, not a
    successful one listing "not found" per id: the model sees an error, and a report's count of
    valid tool calls does not count it."""
    tools = {t.name: t for t in ALL_TOOLS}
    llm = ScriptedChatModel()
    ctx = make_ctx(synth_index, mode, models=ModelSet(document_llm=llm, vlm=llm))
    docs = call_tool(tools, ctx, "document_qa", {"doc_ids": ["2018-01-01_20:00:00"], "query": "q"})
    assert docs.error == (
        "no document with the id(s) 2018-01-01_20:00:00; use document ids from "
        "search_documents results"
    )
    ids = ["videoplayer_1", "123_9", "x", "y"]
    clips_ = call_tool(tools, ctx, "video_qa", {"video_ids": ids, "query": "q"})
    assert clips_.error is not None and "videoplayer_1, 123_9, x (+1 more)" in clips_.error
    assert clips_.observation.startswith("Error: no clip with the id(s)")
    assert llm.requests == []


def test_too_many_ids_is_a_tool_error_through_the_registry(synth_index: SynthIndex) -> None:
    tools = {t.name: t for t in ALL_TOOLS}
    ctx = make_ctx(synth_index, max_ids=2)
    result = call_tool(tools, ctx, "document_qa", {"doc_ids": ["a", "b", "c"], "query": "q"})
    assert result.error and "asked about 3 documents; at most 2 per call" in result.error
    assert "ask about fewer" in result.error
    result = call_tool(tools, ctx, "video_qa", '{"video_ids": ["1_1","1_2","1_3"], "query": "q"}')
    assert result.error and "at most 2 per call" in result.error
    with pytest.raises(ToolError, match="query is empty"):
        document_qa(ctx, DocumentQAArgs(doc_ids=["a"], query="  "))


def test_unparseable_model_output_keeps_raw_text_without_confidence(
    synth_index: SynthIndex,
) -> None:
    doc = doc_of_type(synth_index, "espn_report")
    llm = ScriptedChatModel(
        [lambda m, n: '<think>{"answer": "decoy", "confidence": 1}</think>It was a dunk.'],
        finish_reason="length",
    )
    result = document_qa(
        make_ctx(synth_index, models=ModelSet(document_llm=llm)),
        DocumentQAArgs(doc_ids=doc.doc_id, query="What shot?"),
    )
    item = data(result).items[0]
    assert (item.answer, item.confidence, item.parsed) == ("It was a dunk.", None, False)
    line = result.observation.splitlines()[-1]
    assert "answer=It was a dunk. (confidence null)" in line
    assert "model returned unparseable output" in line and "finish_reason=length" in line
    assert "0.5" not in line and "decoy" not in line


def test_model_server_down_is_an_observation(synth_index: SynthIndex) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ep = ModelEndpoint(base_url=f"http://127.0.0.1:{port}/v1", model="m", max_retries=0)
    client = OpenAIChatClient.from_endpoint(ep)
    ctx = make_ctx(synth_index, models=ModelSet(document_llm=client), document_llm=ep)
    doc = doc_of_type(synth_index, "espn_report")
    result = document_qa(ctx, DocumentQAArgs(doc_ids=[doc.doc_id], query="Who won?"))
    assert result.error is None
    line = result.observation.splitlines()[-1]
    assert line.startswith(
        f"{doc.doc_id}: error: QA failed: chat request to http://127.0.0.1:{port}"
    )
    assert "connection error" in line


def test_slow_server_times_out_per_call(
    synth_index: SynthIndex, fake_server: FakeOpenAIServer
) -> None:
    fake_server.push(Reply.hanging())
    ep = ModelEndpoint(base_url=fake_server.url, model="m", timeout_s=0.3, max_retries=0)
    ctx = make_ctx(  # one at a time, so the first document is the one that meets the hang
        synth_index,
        models=ModelSet(document_llm=OpenAIChatClient.from_endpoint(ep)),
        document_llm=ep,
        max_concurrency=1,
    )
    doc = doc_of_type(synth_index, "espn_report")
    other = doc_of_type(synth_index, "game_stat_team")
    result = document_qa(ctx, DocumentQAArgs(doc_ids=[doc.doc_id, other.doc_id], query="Who won?"))
    first, second = data(result).items
    assert first.error and "timed out after 0.3s" in first.error
    assert second.error is None and second.answer == "echo: Who won?"


def test_real_http_path_end_to_end(synth_index: SynthIndex, fake_server: FakeOpenAIServer) -> None:
    ep = ModelEndpoint(base_url=fake_server.url, model="qa", temperature=0.2, max_tokens=99)
    ctx = make_ctx(
        synth_index, models=models_from_settings(QASettings(document_llm=ep)), document_llm=ep
    )
    doc = doc_of_type(synth_index, "espn_report")
    result = document_qa(ctx, DocumentQAArgs(doc_ids=[doc.doc_id], query="Who won?"))
    assert "answer=echo: Who won? (confidence 0.8)" in result.observation
    body = fake_server.requests[0]["body"]
    assert (body["temperature"], body["max_tokens"]) == (0.2, 99)


def test_models_from_settings_share_clients() -> None:
    ep = ModelEndpoint(base_url="http://127.0.0.1:1/v1", model="m")
    models = models_from_settings(QASettings(document_llm=ep, caption_llm=ep))
    assert models.document_llm is models.caption_llm and models.document_llm is not None
    assert models.vlm is None


# ---------------------------------------------------------------- video_qa


def test_oracle_mode_routes_captions_to_the_caption_llm(synth_index: SynthIndex) -> None:
    clip = next(c for c in clips(synth_index) if c.caption.strip())
    caption_llm, vlm = ScriptedChatModel(model="cap"), ScriptedChatModel()
    doc_llm = ScriptedChatModel(model="doc")
    ctx = make_ctx(
        synth_index,
        mode="oracle",
        models=ModelSet(document_llm=doc_llm, vlm=vlm, caption_llm=caption_llm),
    )
    result = video_qa(ctx, VideoQAArgs(video_ids=[clip.clip_id], query="Who passed?"))
    assert vlm.requests == [] and doc_llm.requests == []
    (req,) = caption_llm.requests
    assert image_count(req.messages) == 0
    prompt = req.prompt
    assert "Clip Captions:\n" + clip.caption.strip() in prompt
    assert "Question: Who passed?" in prompt
    assert "oracle mode: answers come from ground-truth captions" in result.observation
    assert "via model cap" in result.observation


def test_oracle_falls_back_to_document_llm_and_says_no_text(synth_index: SynthIndex) -> None:
    empty = next(c for c in clips(synth_index) if not c.caption.strip())
    doc_llm = ScriptedChatModel(model="doc")
    ctx = make_ctx(synth_index, mode="oracle", models=ModelSet(document_llm=doc_llm))
    result = video_qa(ctx, VideoQAArgs(video_ids=[empty.clip_id], query="Who scored?"))
    assert NO_CAPTIONS in doc_llm.requests[0].prompt
    assert "no captions for this clip" in result.observation


def test_oracle_extractive_reader_without_models(synth_index: SynthIndex) -> None:
    clip = next(c for c in clips(synth_index) if c.caption.strip() and c.players)
    empty = next(c for c in clips(synth_index) if not c.caption.strip())
    player = clip.players[0]
    result = video_qa(
        make_ctx(synth_index, mode="oracle"),
        VideoQAArgs(video_ids=[clip.clip_id, empty.clip_id], query=f"What did {player} do?"),
    )
    first, second = data(result).items
    assert NO_CAPTION_LLM in result.observation
    assert first.answer and first.answer in clip.caption
    assert second.answer == "there is no evidence" and second.confidence is None


def test_default_mode_without_a_vlm_refuses(synth_index: SynthIndex) -> None:
    clip = clips(synth_index)[0]
    result = video_qa(make_ctx(synth_index), VideoQAArgs(video_ids=[clip.clip_id], query="q"))
    assert result.error == NO_VLM and result.observation == f"Error: {NO_VLM}"


@pytest.fixture
def corpus_with_video(synth_index: SynthIndex, tmp_path: Path) -> tuple[Path, list[ClipRecord]]:
    """A copy of the shared corpus (it gets files) with real mp4s at its first 16 clips' paths."""
    corpus, chosen = copy_with_video(synth_index.corpus, tmp_path / "corpus", clips=16)
    return corpus.root, chosen


def test_default_mode_sends_sixteen_frames_and_no_captions(
    synth_index: SynthIndex, corpus_with_video: tuple[Path, list[ClipRecord]]
) -> None:
    corpus_dir, chosen = corpus_with_video
    clip = next(c for c in chosen if c.caption.strip())
    vlm, caption_llm = ScriptedChatModel(), ScriptedChatModel(model="cap")
    ctx = make_ctx(
        synth_index, models=ModelSet(vlm=vlm, caption_llm=caption_llm), corpus=corpus_dir
    )
    result = video_qa(ctx, VideoQAArgs(video_ids=[clip.clip_id], query="What shot was it?"))
    assert caption_llm.requests == []
    (req,) = vlm.requests
    parts = req.messages[0].content
    assert isinstance(parts, list) and isinstance(parts[0], TextPart)
    assert all(isinstance(p, ImagePart) for p in parts[1:]) and len(parts) == 17
    assert parts[0].text.startswith("You are a helpful video assistant. Analyze the visual content")
    assert clip.caption.strip() not in parts[0].text  # ground truth never leaks into default mode
    url = parts[1].url  # type: ignore[union-attr]
    assert url.startswith("data:image/jpeg;base64,")
    with Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))) as img:
        assert img.size == (336, 189)
    assert "answer=saw 16 images (confidence 0.75)" in result.observation
    assert "16 frames per clip" in result.observation


def test_default_mode_missing_video_and_unknown_clip(
    synth_index: SynthIndex, corpus_with_video: tuple[Path, list[ClipRecord]]
) -> None:
    corpus_dir, chosen = corpus_with_video
    no_file = clips(synth_index)[100]
    vlm = ScriptedChatModel()
    ctx = make_ctx(synth_index, models=ModelSet(vlm=vlm), corpus=corpus_dir, frames_per_clip=4)
    ids = [no_file.clip_id, chosen[0].clip_id, "123_9"]
    items = data(video_qa(ctx, VideoQAArgs(video_ids=ids, query="q"))).items
    assert items[0].error and "file not found" in items[0].error
    assert str(corpus_dir) not in items[0].error  # the model sees the file name, not our disk
    assert items[1].answer == "saw 4 images"
    assert items[2].error and "clip 123_9 not found" in items[2].error
    assert len(vlm.requests) == 1


def _first_frame_width(messages: Any) -> int:
    part = messages[-1].content[1]
    with Image.open(io.BytesIO(base64.b64decode(part.url.split(",", 1)[1]))) as img:
        return int(img.size[0])


def test_fan_out_is_bounded_and_keeps_request_order(
    synth_index: SynthIndex, corpus_with_video: tuple[Path, list[ClipRecord]]
) -> None:
    corpus_dir, chosen = corpus_with_video
    corpus = Corpus(corpus_dir)
    for i, clip in enumerate(chosen):  # clip i is 64 + 8 i pixels wide: its frames say who it is
        write_video(corpus.clip_path(SPORT, clip.clip_id), seconds=0.2, size=(64 + 8 * i, 48))  # type: ignore[arg-type]
    ids = [c.clip_id for c in chosen]
    vlm = ScriptedChatModel(
        [lambda m, n: f'{{"answer": "width {_first_frame_width(m)}", "confidence": 0.5}}'],
        # Clips earlier in the request answer slower, so completion order is not request order.
        delay_s=lambda n: 0.02 + 0.01 * (16 - n),
    )
    ctx = make_ctx(synth_index, models=ModelSet(vlm=vlm), corpus=corpus_dir, max_concurrency=3)
    result = video_qa(ctx, VideoQAArgs(video_ids=ids, query="q"))
    assert len(vlm.requests) == 16 and vlm.max_in_flight == 3
    assert vlm.finished != sorted(vlm.finished)
    assert [i.id for i in data(result).items] == ids
    assert [i.answer for i in data(result).items] == [f"width {64 + 8 * i}" for i in range(16)]


def test_sync_wrapper_works_inside_a_running_loop(synth_index: SynthIndex) -> None:
    doc = doc_of_type(synth_index, "espn_report")
    tools = {t.name: t for t in ALL_TOOLS}
    ctx = make_ctx(synth_index, models=ModelSet(document_llm=ScriptedChatModel()))

    async def agent_step() -> str:
        sync = call_tool(tools, ctx, "document_qa", {"doc_ids": [doc.doc_id], "query": "q"})
        native = await document_qa_async(ctx, DocumentQAArgs(doc_ids=[doc.doc_id], query="q"))
        assert native.observation == sync.observation
        return sync.observation

    assert "answer=saw 0 images" in asyncio.run(agent_step())


def test_registry_exposes_qa_tools_with_generated_schemas() -> None:
    assert [t.name for t in QA_TOOLS] == ["document_qa", "video_qa"]
    assert ALL_TOOLS[: len(SEARCH_TOOLS) + len(QA_TOOLS)] == SEARCH_TOOLS + QA_TOOLS
    doc_schema = QA_TOOLS[0].schema()["function"]["parameters"]
    assert set(doc_schema["required"]) == {"doc_ids", "query"}
    assert VideoQAArgs.model_validate({"clip_ids": "1_2", "query": "q"}).video_ids == ["1_2"]


def test_default_mode_without_a_corpus_says_so(synth_index: SynthIndex) -> None:
    ctx = make_ctx(synth_index, models=ModelSet(vlm=ScriptedChatModel()))
    ctx.corpus = None
    result = video_qa(ctx, VideoQAArgs(video_ids=[clips(synth_index)[0].clip_id], query="q"))
    assert result.error and "no corpus configured" in result.error
