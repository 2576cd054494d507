"""Spans of agent runs made from trajectory events (agent/tracing.py), with the OpenTelemetry
SDK's in-memory exporter: a workflow run (tools only, no model), a run cancelled mid-tool,
and an llm run whose model fails (ScriptedChatModel raising the client's ModelTimeout)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from playscout.agent import Agent
from playscout.agent.runner import AgentError
from playscout.agent.tracing import otlp_tracer
from playscout.clients.chat import ModelTimeout
from playscout.config import TelemetrySettings
from playscout.tools.registry import ALL_TOOLS
from tests.doubles import ScriptedChatModel

pytest.importorskip("opentelemetry.sdk.trace")
from opentelemetry.trace import StatusCode

from tests.tracing import memory_tracer


@pytest.fixture
def traced() -> Iterator[tuple[Any, Any]]:
    with memory_tracer() as pair:
        yield pair


def test_workflow_run_has_one_tool_span_per_call(synth_index: Any, traced: Any) -> None:
    tracer, exporter = traced
    agent = Agent(synth_index.ctx("oracle"), tools=ALL_TOOLS, policy="workflow", tracer=tracer)
    result = asyncio.run(agent.run(synth_index.question))
    spans = exporter.get_finished_spans()
    [run] = [s for s in spans if s.parent is None]
    tools = sorted((s for s in spans if s.parent), key=lambda s: s.start_time)
    assert result.status == "answered" and run.attributes["playscout.status"] == "answered"
    assert "gen_ai.request.model" not in run.attributes  # no model in the workflow
    names = [e.name for e in result.events if e.type == "tool_call"]
    assert [s.attributes["gen_ai.tool.name"] for s in tools] == names
    assert names[-2:] == ["search_videos", "video_qa"] and "document_qa" in names  # T9: facts
    assert all(s.status.status_code == StatusCode.UNSET for s in spans)


def test_cancelled_run_still_ends_its_spans(synth_index: Any, traced: Any) -> None:
    tracer, exporter = traced

    def slow(ctx: Any, args: Any, _run: Any = ALL_TOOLS[0].run) -> Any:
        time.sleep(0.5)
        return _run(ctx, args)

    tools = (dataclasses.replace(ALL_TOOLS[0], run=slow), *ALL_TOOLS[1:])
    agent = Agent(synth_index.ctx("oracle"), tools=tools, policy="workflow", tracer=tracer)

    async def cancel_mid_tool() -> None:
        task = asyncio.create_task(agent.run(synth_index.question))
        await asyncio.sleep(0.2)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel_mid_tool())
    spans = exporter.get_finished_spans()
    assert sorted(s.name for s in spans) == [
        "execute_tool search_documents", "invoke_agent playscout-agent",
    ]  # fmt: skip
    assert all(s.attributes["error.type"] == "cancelled" for s in spans)


def test_model_failure_marks_the_chat_and_run_spans(synth_index: Any, traced: Any) -> None:
    tracer, exporter = traced
    model = ScriptedChatModel([ModelTimeout("chat request timed out after 1s")], delay_s=0.05)
    agent = Agent(synth_index.ctx("oracle"), client=model, tools=ALL_TOOLS, tracer=tracer)
    result = asyncio.run(agent.run("who?"))
    assert result.status == "error" and isinstance(result.failure, ModelTimeout)
    assert result.error == "ModelTimeout: chat request timed out after 1s"
    assert "failure" not in result.model_dump()  # never serialised
    spans = {s.name: s for s in exporter.get_finished_spans()}
    chat, run = spans["chat scripted"], spans["invoke_agent playscout-agent"]
    assert chat.attributes["error.type"] == run.attributes["error.type"] == "ModelTimeout"
    assert chat.status.status_code == run.status.status_code == StatusCode.ERROR
    assert (chat.end_time - chat.start_time) / 1e9 >= 0.05  # the failed call's own latency


def test_workflow_spans_carry_call_ids_and_bounded_contents(synth_index: Any, traced: Any) -> None:
    """The workflow policy's calls get ids too; with capture on, each tool span carries its
    arguments (JSON) and result, cut to the limit and saying so."""
    tracer, exporter = traced
    agent = Agent(
        synth_index.ctx("oracle"),
        tools=ALL_TOOLS,
        policy="workflow",
        tracer=tracer,
        capture_content=True,
        content_chars=120,
    )
    result = asyncio.run(
        agent.run(synth_index.question, run_id="ask-1", span_attributes={"x.link": "/here"})
    )
    assert result.run_id == "ask-1" and {e.run_id for e in result.events} == {"ask-1"}
    spans = exporter.get_finished_spans()
    [run] = [s for s in spans if s.parent is None]
    assert run.attributes["playscout.run_id"] == "ask-1" and run.attributes["x.link"] == "/here"
    tools = sorted(
        (s for s in spans if s.name.startswith("execute_tool")), key=lambda s: s.start_time
    )
    calls = [e for e in result.events if e.type == "tool_call"]
    observations = [e for e in result.events if e.type == "observation"]
    ids = [f"ask-1-{i}" for i in range(1, len(calls) + 1)]
    assert len(calls) > 3 and [s.attributes["gen_ai.tool.call.id"] for s in tools] == ids
    assert [c.call_id for c in calls] == ids
    cuts = 0
    for span, call in zip(tools, calls, strict=True):
        arguments = json.dumps(call.arguments, ensure_ascii=False, sort_keys=True)
        if len(arguments) > 120:
            cuts += 1
            arguments = f"{arguments[:120]}…[{len(arguments) - 120} more characters]"
        assert span.attributes["gen_ai.tool.call.arguments"] == arguments
        assert span.attributes["input.value"] == arguments
    assert cuts  # so the cut is tested
    for span, obs in zip(tools, observations, strict=True):
        text = span.attributes["gen_ai.tool.call.result"]
        assert text.startswith(obs.text[:120])
        if len(obs.text) > 120:
            assert text == obs.text[:120] + f"…[{len(obs.text) - 120} more characters]"
        else:
            assert text == obs.text


def test_no_model_spans_for_the_offline_readers(synth_index: Any, traced: Any) -> None:
    """The extractive reader is no model call: a QA tool without a model has no chat span."""
    tracer, exporter = traced
    agent = Agent(synth_index.ctx("oracle"), tools=ALL_TOOLS, policy="workflow", tracer=tracer)
    asyncio.run(agent.run(synth_index.question))
    assert not [s for s in exporter.get_finished_spans() if s.name.startswith("chat")]


def test_a_run_id_that_is_not_an_id_is_refused(synth_index: Any) -> None:
    agent = Agent(synth_index.ctx("oracle"), tools=ALL_TOOLS, policy="workflow")
    with pytest.raises(AgentError, match="not an id"):
        asyncio.run(agent.run("q", run_id="../x"))


def test_otlp_export_names_the_phoenix_project(synth_index: Any) -> None:
    """The exporting tracer over real OTLP/HTTP (a local receiver decodes the protobuf): the
    resource carries the project Phoenix files the traces under."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    bodies: list[bytes] = []

    class Receiver(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            bodies.append(self.rfile.read(int(self.headers["Content-Length"])))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/v1/traces"
        tracer = otlp_tracer(TelemetrySettings(otlp_endpoint=url, project_name="scout-test"))
        agent = Agent(synth_index.ctx("oracle"), tools=ALL_TOOLS, policy="workflow", tracer=tracer)
        asyncio.run(agent.run(synth_index.question, run_id="ask-otlp"))
        assert tracer.span_processor.force_flush(10_000)
    finally:
        server.shutdown()
    resources, names = [], []
    for body in bodies:
        request = ExportTraceServiceRequest.FromString(body)
        for rs in request.resource_spans:
            resources.append({a.key: a.value.string_value for a in rs.resource.attributes})
            names += [s.name for ss in rs.scope_spans for s in ss.spans]
    assert resources and all(r["openinference.project.name"] == "scout-test" for r in resources)
    assert all(r["service.name"] == "playscout" for r in resources)
    assert "invoke_agent playscout-agent" in names and "execute_tool video_qa" in names
