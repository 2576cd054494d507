"""The OpenAI-compatible facade with the official `openai` SDK as the client, against the app
under uvicorn on loopback: blocking and streamed completions, the model list, and the SDK's
typed errors. The agent's own model is FakeOpenAIServer over real HTTP (no model can be served
here cheaply), scripted to call `search_documents` natively and then answer; the tool runs for
real on the shared synthetic index."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from playscout.clients.openai_chat import OpenAIChatClient
from tests.clients.fake_openai_server import FakeOpenAIServer, Reply

from .conftest import free_port, live_server

openai = pytest.importorskip("openai")
MODEL = "playscout-agent"
EXTRA = {"sport": "basketball", "mode": "oracle"}


def search_then_answer() -> list[Reply]:
    call = {
        "id": "call_search_1",
        "type": "function",
        "function": {"name": "search_documents", "arguments": json.dumps({"query": "layup"})},
    }
    return [
        Reply.chat("", tool_calls=[call], finish_reason="tool_calls", usage=(120, 15)),
        Reply.chat("<answer>layup</answer>", usage=(300, 9)),
    ]


def settings(tmp_path: Path, **serving: Any) -> dict[str, Any]:
    return {
        "agent": {
            "trajectory_dir": tmp_path / "traj",
            "session_db": tmp_path / "s.sqlite",
            "tool_protocol": "native",
            "llm": {"timeout_s": 5.0},
        },
        **serving,
    }


@pytest.fixture
def fake_model() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


def sdk(url: str, key: str = "none") -> Any:
    return openai.OpenAI(base_url=f"{url}/v1", api_key=key, max_retries=0, timeout=60)


def test_blocking_and_streamed_completions(app_factory, fake_model, tmp_path, synth_index):
    client = OpenAIChatClient(fake_model.url, "fake-model", max_retries=0)
    app = app_factory(llm_client=client, settings=settings(tmp_path, keepalive_s=0.05))
    question = synth_index.question
    with live_server(app) as srv:
        oa = sdk(srv.url)
        # the aliases this server can run: no video channel in the index, so no default mode
        listed = [m.id for m in oa.models.list()]
        assert listed == [MODEL, "playscout-oracle-llm", "playscout-oracle-workflow"]
        assert oa.models.retrieve(MODEL).owned_by == "playscout"

        fake_model.push(*search_then_answer())
        raw = oa.chat.completions.with_raw_response.create(
            model=MODEL,
            messages=[
                {"role": "system", "content": "You are a helpful assistant."},
                {"role": "user", "content": question},
            ],
            temperature=0.2,
            extra_body=EXTRA,
        )
        done = raw.parse()
        assert raw.headers["x-playscout-ignored-params"] == "temperature"
        assert done.object == "chat.completion" and done.model == MODEL
        assert done.choices[0].message.content == "layup"
        assert done.choices[0].finish_reason == "stop"
        assert (done.usage.prompt_tokens, done.usage.completion_tokens) == (420, 24)
        native = done.playscout  # the /v1/ask body rides along
        assert native["status"] == "answered" and native["mode"] == "oracle"
        assert done.id == f"chatcmpl-{native['trajectory_id']}"
        asked = fake_model.requests[-2]["body"]
        assert asked["messages"][-1]["content"] == question  # the question reached the agent
        assert asked["tools"] and "temperature" in asked  # the agent's own settings

        call, answer = search_then_answer()
        fake_model.push(dataclasses.replace(call, delay_s=0.3), answer)  # time for keep-alives
        stream = oa.chat.completions.create(
            model=MODEL,
            messages=[{"role": "user", "content": question}],
            stream=True,
            stream_options={"include_usage": True},
            extra_body=EXTRA,
        )
        chunks = list(stream)  # the SDK stops at [DONE] and skips keep-alive comments
    assert {c.object for c in chunks} == {"chat.completion.chunk"}
    assert len({c.id for c in chunks}) == 1
    progress = "".join(
        getattr(c.choices[0].delta, "reasoning_content", None) or "" for c in chunks if c.choices
    )
    assert '[turn 1] search_documents {"query": "layup"}' in progress
    assert re.search(r"\[turn 1\] search_documents -> [1-9]\d* docs \(\d+\.\d\d s\)", progress)
    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert content == "layup"
    finish = [
        c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason
    ]
    assert finish == ["stop"]
    assert chunks[-1].choices == [] and chunks[-1].usage.total_tokens == 444


def test_sdk_raises_typed_errors(app_factory, tmp_path, synth_index):
    down = OpenAIChatClient(f"http://127.0.0.1:{free_port()}/v1", "m", max_retries=0)
    app = app_factory(llm_client=down, settings=settings(tmp_path), api_key="s3cret")
    messages = [{"role": "user", "content": synth_index.question}]
    with live_server(app) as srv:
        with pytest.raises(openai.AuthenticationError):
            sdk(srv.url, "wrong").models.list()
        oa = sdk(srv.url, "s3cret")
        with pytest.raises(openai.NotFoundError) as missing:
            oa.chat.completions.create(model="gpt-4o", messages=messages)
        assert missing.value.body["code"] == "model_not_found"
        with pytest.raises(openai.UnprocessableEntityError) as bad:
            oa.chat.completions.create(model=MODEL, messages=messages, tools=[])
        assert bad.value.body["param"] == "tools"
        with pytest.raises(openai.BadRequestError) as sport:
            oa.chat.completions.create(model=MODEL, messages=messages, extra_body={"sport": "x"})
        assert sport.value.body["code"] == "unknown_sport"
        with pytest.raises(openai.InternalServerError) as failed:
            oa.chat.completions.create(model=MODEL, messages=messages, extra_body=EXTRA)
        assert failed.value.status_code == 503
        assert failed.value.body["code"] == "model_unreachable"
        stream = oa.chat.completions.create(
            model=MODEL, messages=messages, stream=True, extra_body=EXTRA
        )
        with pytest.raises(openai.APIError) as mid_stream:
            list(stream)
        assert mid_stream.value.body["code"] == "model_unreachable"
        assert "the agent's model failed" in mid_stream.value.message
