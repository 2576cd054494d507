"""One id per ask, and traces with contents, on real asks over HTTP: the agent's model and the
VLM are FakeOpenAIServer (real sockets, scripted replies), the tools, the index, the clip
files and the frame sampling are real, and the spans go to the SDK's in-memory exporter.

With PLAYSCOUT_TRACE_DUMP=<path>, the streamed ask's exported trace is also written there as
JSON (the issue's closing note quotes it)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from playscout.agent.tracing import resource
from playscout.agent.trajectory import JsonlRecorder, RunStart, TrajectoryWriter
from playscout.clients.openai_chat import OpenAIChatClient
from playscout.config import TelemetrySettings
from playscout.eval.tasks.routes import tool_subset
from playscout.tools.tool import ModelSet
from tests.clients.fake_openai_server import FakeOpenAIServer, Reply
from tests.synthdata import SPORT, SynthIndex, copy_with_video

from .conftest import live_server
from .test_live import parse_sse

# The default-mode asks offer video_qa alone: the shared index has no default-mode clip
# search, which the ask's preflight refuses when search_videos is offered (as `playscout ask`).
VIDEO_QA_ONLY = tool_subset(["video_qa"])

pytest.importorskip("opentelemetry.sdk.trace")
from tests.tracing import memory_tracer  # noqa: E402

CONTENT_CHARS = 400
QUERY = "What shot type was it?"


@pytest.fixture
def traced() -> Iterator[tuple[Any, Any]]:
    with memory_tracer(resource(TelemetrySettings())) as pair:  # as exported
        yield pair


@pytest.fixture
def clips_with_video(synth_index: SynthIndex, tmp_path: Path) -> tuple[Path, list[str]]:
    """A copy of the shared corpus with real mp4s at two clips' paths."""
    corpus, chosen = copy_with_video(synth_index.corpus, tmp_path / "corpus", clips=2)
    return corpus.root, [c.clip_id for c in chosen]


def video_qa_then_answer(clip_ids: list[str]) -> list[Reply]:
    call = {
        "id": "call_vqa_1",
        "type": "function",
        "function": {
            "name": "video_qa",
            "arguments": json.dumps({"video_ids": clip_ids, "query": QUERY}),
        },
    }
    return [
        Reply.chat("", tool_calls=[call], finish_reason="tool_calls", usage=(200, 20)),
        Reply.chat("<answer>layup</answer>", usage=(400, 8)),
    ]


def settings(tmp_path: Path, corpus: Path, **telemetry: Any) -> dict[str, Any]:
    return {
        "corpus_dir": str(corpus),
        "agent": {
            "trajectory_dir": tmp_path / "traj",
            "session_db": tmp_path / "s.sqlite",
            "tool_protocol": "native",
            "llm": {"timeout_s": 10.0},
        },
        "telemetry": telemetry,
    }


def dump(spans: list[Any]) -> list[dict[str, Any]]:
    """Spans as the exporter got them: names, ids, parents, times, attributes."""
    rows = []
    for s in sorted(spans, key=lambda s: s.start_time):
        rows.append(
            {
                "name": s.name,
                "trace_id": f"{s.context.trace_id:032x}",
                "span_id": f"{s.context.span_id:016x}",
                "parent_id": f"{s.parent.span_id:016x}" if s.parent else None,
                "duration_ms": round((s.end_time - s.start_time) / 1e6, 2),
                "status": s.status.status_code.name,
                "attributes": dict(s.attributes),
                "resource": dict(s.resource.attributes),
            }
        )
    return rows


def test_streamed_ask_one_id_tool_contents_and_vlm_spans(
    app_factory, tmp_path, traced, clips_with_video
):
    tracer, exporter = traced
    corpus, clip_ids = clips_with_video
    with FakeOpenAIServer() as agent_model, FakeOpenAIServer() as vlm:
        agent_model.push(*video_qa_then_answer(clip_ids))
        app = app_factory(
            llm_client=OpenAIChatClient(agent_model.url, "fake-model", max_retries=0),
            models=ModelSet(vlm=OpenAIChatClient(vlm.url, "fake-vlm", max_retries=0)),
            tools=VIDEO_QA_ONLY,
            settings=settings(
                tmp_path, corpus, capture_content=True, max_content_chars=CONTENT_CHARS
            ),
            tracer=tracer,
        )
        ask = {"question": "Which shot?", "sport": SPORT, "mode": "default", "policy": "llm"}
        with live_server(app) as srv, httpx.Client(base_url=srv.url, timeout=60) as c:
            with c.stream("POST", "/v1/ask/stream", json=ask) as s:
                assert s.status_code == 200
                ask_id = s.headers["X-Playscout-Trajectory"]
                events = parse_sse(s.read().decode())
            detail = c.get(f"/v1/trajectories/{ask_id}")
            viewer = c.get(f"/viewer/{ask_id}", follow_redirects=False)
    result = dict(events)["result"]
    assert result["answer"] == "layup"
    # one id: header, every event, the response, the file, the API, the viewer, the spans
    assert {d["run_id"] for name, d in events if name not in ("result", "error")} == {ask_id}
    assert result["trajectory_id"] == result["run_id"] == ask_id
    assert (tmp_path / "traj" / f"{ask_id}.jsonl").is_file()
    assert detail.status_code == 200 and detail.json()["id"] == ask_id
    assert viewer.headers["location"] == f"/viewer#/asks/{ask_id}"

    spans = list(exporter.get_finished_spans())
    if os.environ.get("PLAYSCOUT_TRACE_DUMP"):
        Path(os.environ["PLAYSCOUT_TRACE_DUMP"]).write_text(json.dumps(dump(spans), indent=2))
    [run] = [s for s in spans if s.parent is None]
    assert run.attributes["playscout.run_id"] == ask_id
    assert run.attributes["playscout.viewer.url"] == f"/viewer#/asks/{ask_id}"
    assert run.attributes["input.value"] == "Which shot?"
    assert run.attributes["output.value"] == "layup"
    [tool] = [s for s in spans if s.name == "execute_tool video_qa"]
    assert tool.parent.span_id == run.context.span_id
    assert tool.attributes["gen_ai.tool.call.id"] == "call_vqa_1"
    arguments = json.loads(tool.attributes["gen_ai.tool.call.arguments"])
    assert arguments == {"video_ids": clip_ids, "query": QUERY}
    assert tool.attributes["input.mime_type"] == "application/json"
    observation = next(d["text"] for name, d in events if name == "observation")
    tool_result = tool.attributes["gen_ai.tool.call.result"]
    assert tool_result == tool.attributes["output.value"]
    assert tool_result.startswith(observation[:CONTENT_CHARS])
    if len(observation) > CONTENT_CHARS:
        assert tool_result.endswith(f"[{len(observation) - CONTENT_CHARS} more characters]")
    # the VLM inside video_qa: one chat span per clip, under the tool's span, within its time
    vlm_spans = [s for s in spans if s.name == "chat fake-vlm"]
    assert len(vlm_spans) == 2
    assert {s.parent.span_id for s in vlm_spans} == {tool.context.span_id}
    assert {s.attributes["playscout.subject_id"] for s in vlm_spans} == set(clip_ids)
    for s in vlm_spans:
        assert s.attributes["openinference.span.kind"] == "LLM"
        assert s.attributes["gen_ai.request.model"] == "fake-vlm"
        assert s.attributes["playscout.images"] == 16
        assert s.attributes["server.address"] == "127.0.0.1"
        assert s.attributes["gen_ai.usage.input_tokens"] > 0
        assert s.attributes["input.value"] == QUERY
        assert s.attributes["gen_ai.tool.call.id"] == "call_vqa_1"
        assert tool.start_time <= s.start_time <= s.end_time <= tool.end_time
    assert {s.context.trace_id for s in spans} == {run.context.trace_id}


def test_no_content_without_capture_but_ids_and_links(
    app_factory, tmp_path, traced, clips_with_video
):
    tracer, exporter = traced
    corpus, clip_ids = clips_with_video
    with FakeOpenAIServer() as agent_model, FakeOpenAIServer() as vlm:
        agent_model.push(*video_qa_then_answer(clip_ids))
        app = app_factory(
            llm_client=OpenAIChatClient(agent_model.url, "fake-model", max_retries=0),
            models=ModelSet(vlm=OpenAIChatClient(vlm.url, "fake-vlm", max_retries=0)),
            tools=VIDEO_QA_ONLY,
            settings=settings(tmp_path, corpus, public_url="https://scout.example.org/"),
            tracer=tracer,
        )
        ask = {
            "question": "Which shot?",
            "sport": SPORT,
            "mode": "default",
            "policy": "llm",
            "session_id": "sess-1",
        }
        with live_server(app) as srv, httpx.Client(base_url=srv.url, timeout=60) as c:
            body = c.post("/v1/ask", json=ask).json()
    spans = list(exporter.get_finished_spans())
    [run] = [s for s in spans if s.parent is None]
    assert run.attributes["playscout.run_id"] == body["trajectory_id"]
    assert run.attributes["session.id"] == "sess-1"
    link = f"https://scout.example.org/viewer#/asks/{body['trajectory_id']}"
    assert run.attributes["playscout.viewer.url"] == link
    content = ("input.value", "output.value", "gen_ai.tool.call.arguments")
    content += ("gen_ai.tool.call.result",)
    assert not [k for s in spans for k in content if k in s.attributes]
    assert len([s for s in spans if s.name == "chat fake-vlm"]) == 2  # spans, not contents


def test_old_trajectory_opens_by_its_name_and_by_its_run_id(client, tmp_path):
    """A file written before the ask's id named its events too: its name and its run id."""
    name, old_run = "20250101T000000-0123456789ab", "20250101T000000-feedbeef"
    path = tmp_path / "traj" / f"{name}.jsonl"
    writer = TrajectoryWriter(old_run, [JsonlRecorder(path)])
    writer.emit(RunStart, question="q?", sport=SPORT, mode="oracle", policy="workflow")
    writer.close()
    for ident in (name, old_run):
        r = client.get(f"/v1/trajectories/{ident}")
        assert r.status_code == 200, r.text
        assert r.json()["id"] == name and r.json()["summary"]["run_ids"] == [old_run]
    assert client.get("/v1/trajectories/20250101T000000-00000000").status_code == 404
