"""An ask that ends without an answer still says something through the OpenAI facade: a chat UI
shows `content`, and an empty reply with `finish_reason: stop` reads as the agent answering
nothing. The agent's model is FakeOpenAIServer over real HTTP (the structured protocol's
final_answer with an empty answer is the run that ends `no_answer` with no answer text); the
official SDK reads the app under uvicorn, blocking and streamed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from playscout.clients.openai_chat import OpenAIChatClient
from tests.clients.fake_openai_server import FakeOpenAIServer, Reply
from tests.synthdata import SynthIndex

from .conftest import live_server

openai = pytest.importorskip("openai")
MODEL = "playscout-oracle-llm"


def empty_final_answer() -> Reply:
    call = {
        "id": "call_final_1",
        "type": "function",
        "function": {"name": "final_answer", "arguments": json.dumps({"answer": ""})},
    }
    return Reply.chat("", tool_calls=[call], finish_reason="tool_calls")


def test_a_run_without_an_answer_says_so_in_content(
    app_factory: Any, tmp_path: Path, synth_index: SynthIndex
) -> None:
    settings = {"agent": {"tool_protocol": "structured", "trajectory_dir": tmp_path / "traj"}}
    with FakeOpenAIServer() as fake:
        client = OpenAIChatClient(fake.url, "fake-model", max_retries=0)
        with live_server(app_factory(llm_client=client, settings=settings)) as srv:
            oa = openai.OpenAI(base_url=f"{srv.url}/v1", api_key="none", max_retries=0)
            messages = [{"role": "user", "content": synth_index.question}]
            fake.push(empty_final_answer())
            done = oa.chat.completions.create(model=MODEL, messages=messages)
            fake.push(empty_final_answer())
            chunks = list(oa.chat.completions.create(model=MODEL, messages=messages, stream=True))
    native = done.playscout
    assert native["status"] == "no_answer" and native["answer"] is None  # the native body as is
    content = done.choices[0].message.content
    assert done.choices[0].finish_reason == "stop"
    assert content == (
        "No answer: the agent found no evidence that answers this question "
        f"(trajectory {native['trajectory_id']})."
    )
    streamed = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    finish = [
        c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason
    ]
    assert finish == ["stop"]
    last = chunks[-1].model_extra or {}
    assert streamed == "No answer: the agent found no evidence that answers this question " + (
        f"(trajectory {last['playscout']['trajectory_id']})."
    )
