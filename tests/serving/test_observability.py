"""Traces and metrics of real asks: the OpenTelemetry span tree of one run (SDK in-memory
exporter), and the Prometheus series on /metrics. The agent's model is FakeOpenAIServer over
real HTTP (see test_openai_sdk.py); tools and index are real."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from playscout.clients.openai_chat import OpenAIChatClient
from tests.clients.fake_openai_server import FakeOpenAIServer
from tests.synthdata import workflow_calls

from .conftest import free_port
from .test_openai_sdk import search_then_answer, settings

pytest.importorskip("opentelemetry.sdk.trace")
from opentelemetry.trace import StatusCode

from tests.tracing import memory_tracer

ASK = {"question": "Which shot?", "policy": "llm", "mode": "oracle"}


@pytest.fixture
def traced() -> Iterator[tuple[Any, Any]]:
    with memory_tracer() as pair:
        yield pair


def span_tree(spans: list[Any]) -> str:
    """`name {key attributes}` indented under its parent, in start order (for the report)."""
    keys = (
        "gen_ai.operation.name", "gen_ai.request.model", "gen_ai.usage.input_tokens",
        "gen_ai.usage.output_tokens", "gen_ai.tool.name", "gen_ai.tool.call.id",
        "openinference.span.kind", "playscout.status", "error.type",
    )  # fmt: skip
    children: dict[Any, list[Any]] = {}
    for s in sorted(spans, key=lambda s: s.start_time):
        children.setdefault(s.parent.span_id if s.parent else None, []).append(s)
    lines: list[str] = []

    def walk(parent: Any, depth: int) -> None:
        for s in children.get(parent, []):
            shown = {k: s.attributes[k] for k in keys if k in s.attributes}
            status = (
                ""
                if s.status.status_code == StatusCode.UNSET
                else f" [{s.status.status_code.name}]"
            )
            ms = (s.end_time - s.start_time) / 1e6
            lines.append(f"{'  ' * depth}{s.name} ({ms:.1f} ms){status} {shown}")
            walk(s.context.span_id, depth + 1)

    walk(None, 0)
    return "\n".join(lines)


def test_one_ask_is_a_span_tree(app_factory, tmp_path, traced):
    tracer, exporter = traced
    with FakeOpenAIServer() as fake:
        fake.push(*search_then_answer())
        client = OpenAIChatClient(fake.url, "fake-model", max_retries=0)
        app = app_factory(llm_client=client, settings=settings(tmp_path), tracer=tracer)
        with TestClient(app) as c:
            r = c.post("/v1/ask", json=ASK)
    assert r.status_code == 200 and r.json()["answer"] == "layup"
    spans = exporter.get_finished_spans()
    print(span_tree(list(spans)))
    [run] = [s for s in spans if s.parent is None]
    assert run.name == "invoke_agent playscout-agent"
    assert run.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert run.attributes["openinference.span.kind"] == "AGENT"
    assert run.attributes["gen_ai.request.model"] == "fake-model"
    assert run.attributes["playscout.status"] == "answered"
    assert (
        run.attributes["gen_ai.usage.input_tokens"],
        run.attributes["gen_ai.usage.output_tokens"],
    ) == (420, 24)
    assert "input.value" not in run.attributes  # content capture is off by default
    children = sorted((s for s in spans if s.parent is not None), key=lambda s: s.start_time)
    assert [s.name for s in children] == [
        "chat fake-model", "execute_tool search_documents", "chat fake-model",
    ]  # fmt: skip
    assert {s.parent.span_id for s in children} == {run.context.span_id}
    assert {s.context.trace_id for s in spans} == {run.context.trace_id}
    first, tool, second = children
    assert first.attributes["gen_ai.operation.name"] == "chat"
    assert first.attributes["gen_ai.usage.input_tokens"] == 120
    assert first.attributes["gen_ai.response.finish_reasons"] == ("tool_calls",)
    assert first.attributes["openinference.span.kind"] == "LLM"
    assert first.attributes["server.address"] == "127.0.0.1"
    assert tool.attributes["gen_ai.operation.name"] == "execute_tool"
    assert tool.attributes["gen_ai.tool.call.id"] == "call_search_1"
    assert tool.attributes["openinference.span.kind"] == "TOOL"
    assert first.end_time <= tool.start_time <= tool.end_time <= second.start_time
    assert run.start_time <= first.start_time and second.end_time <= run.end_time


def test_a_failed_model_call_is_an_error_span(app_factory, tmp_path, traced):
    tracer, exporter = traced
    down = OpenAIChatClient(f"http://127.0.0.1:{free_port()}/v1", "fake-model", max_retries=0)
    app = app_factory(llm_client=down, settings=settings(tmp_path), tracer=tracer)
    with TestClient(app) as c:
        assert c.post("/v1/ask", json=ASK).status_code == 503
    spans = exporter.get_finished_spans()
    print(span_tree(list(spans)))
    [run] = [s for s in spans if s.parent is None]
    [chat] = [s for s in spans if s.parent is not None]
    assert run.status.status_code == chat.status.status_code == StatusCode.ERROR
    assert chat.name == "chat fake-model" and chat.attributes["error.type"] == "ModelUnavailable"
    assert "connection error" in chat.status.description


def metric(text: str, line_start: str) -> float:
    [value] = [
        float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(line_start)
    ]
    return value


def test_metrics_count_asks_tools_tokens_and_errors(app_factory, tmp_path, synth_index):
    with FakeOpenAIServer() as fake:
        fake.push(*search_then_answer())
        client = OpenAIChatClient(fake.url, "fake-model", max_retries=0)
        app = app_factory(llm_client=client, settings=settings(tmp_path, max_concurrent_asks=1))
        limiter = app.state.serving.limiter
        with TestClient(app) as c:
            assert c.post("/v1/ask", json=ASK).status_code == 200
            workflow = {"question": synth_index.question, "policy": "workflow", "mode": "oracle"}
            assert c.post("/v1/ask", json=workflow).status_code == 200
            assert c.get("/v1/trajectories/nope").status_code == 404
            limiter.acquire()  # the one slot is taken: the next ask is refused
            assert c.post("/v1/ask", json=workflow).status_code == 429
            busy = c.get("/metrics").text
            limiter.release()
            r = c.get("/metrics")
    assert r.headers["content-type"].startswith("text/plain")
    text = r.text
    print(
        "\n".join(
            line
            for line in text.splitlines()
            if line.startswith("playscout_") and "_bucket" not in line
        )
    )
    ask = "playscout_ask_duration_seconds_count"
    assert metric(text, f'{ask}{{outcome="answered",policy="llm"}}') == 1
    assert metric(text, f'{ask}{{outcome="answered",policy="workflow"}}') == 1
    tool = 'playscout_tool_duration_seconds_count{outcome="ok",tool="search_documents"}'
    workflow_searches = workflow_calls(synth_index.question).count("search_documents")
    assert metric(text, tool) == 1 + workflow_searches  # one by the llm run, the workflow's
    assert metric(text, 'playscout_model_tokens_total{kind="prompt"}') == 420
    assert metric(text, 'playscout_model_tokens_total{kind="completion"}') == 24
    assert metric(text, 'playscout_http_errors_total{status="404"}') == 1
    assert metric(text, 'playscout_http_errors_total{status="429"}') == 1
    assert metric(text, "playscout_asks_rejected_total") == 1
    assert metric(busy, "playscout_asks_in_flight") == 1
    assert metric(text, "playscout_asks_in_flight") == 0
