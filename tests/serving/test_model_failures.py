"""When the agent's model fails, an ask is a 502/503/504 with the OpenAI error object, chosen
by the cause, never HTTP 200 with `status: error`; a streamed ask ends with an `error` event
carrying the same object. The model side is real HTTP: a closed port (server down) and
FakeOpenAIServer (tests/clients/) scripted to hang, fail or answer nonsense; the agent's
client is the real OpenAIChatClient."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from playscout.agent import read_trajectory
from playscout.agent.trajectory import ErrorEvent
from playscout.clients.openai_chat import OpenAIChatClient
from tests.clients.fake_openai_server import FakeOpenAIServer, Reply

from .conftest import api_error, error_object, free_port, live_server

VLLM_UNKNOWN_MODEL = "The model `no-such-model` does not exist."  # vLLM's 404 message


def agent_settings(tmp_path: Path, protocol: str) -> dict[str, Any]:
    return {
        "agent": {
            "trajectory_dir": tmp_path / "traj",
            "session_db": tmp_path / "s.sqlite",
            "tool_protocol": protocol,
            "llm": {"timeout_s": 0.5},  # the agent's per-call timeout (the policy sends it)
        }
    }


def model_client(url: str) -> OpenAIChatClient:
    """One retry with a tiny backoff, so each case takes about a second at most."""
    return OpenAIChatClient(url, "fake-model", timeout_s=5.0, max_retries=1, backoff_base_s=0.01)


def parse_events(text: str) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for chunk in text.strip().split("\n\n"):
        lines = [line for line in chunk.splitlines() if not line.startswith(":")]
        fields = dict(line.split(": ", 1) for line in lines if ": " in line)
        if "data" in fields:
            out.append((fields.get("event", ""), json.loads(fields["data"])))
    return out


CASES = [
    # (id, replies queued on the fake server (None: no server), protocol, status, code)
    ("server down", None, "auto", 503, "model_unreachable"),
    ("timeout", [Reply.hanging()] * 4, "text", 504, "model_timeout"),
    ("5xx", [Reply.error(500, "engine crashed")] * 4, "text", 502, "model_server_error"),
    ("unknown model", [Reply.error(404, VLLM_UNKNOWN_MODEL)] * 2, "auto", 502, "model_not_found"),
    ("overloaded", [Reply.error(429, "slow down", retry_after="1")] * 4, "text", 503, "model_overloaded"),
    ("bad reply", [Reply.garbage()] * 4, "text", 502, "model_bad_response"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("replies", "protocol", "status", "code"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_model_failure_is_a_5xx_with_the_reason(
    app_factory, synth_index, tmp_path, replies, protocol, status, code
):
    body = {"question": synth_index.question, "mode": "oracle", "policy": "llm"}
    chat = {
        "model": "playscout-agent",
        "messages": [{"role": "user", "content": synth_index.question}],
        "mode": "oracle",
    }
    with FakeOpenAIServer() as fake:
        url = fake.url if replies is not None else f"http://127.0.0.1:{free_port()}/v1"
        app = app_factory(
            llm_client=model_client(url),
            settings=agent_settings(tmp_path, protocol),
        )
        with live_server(app) as srv, httpx.Client(base_url=srv.url, timeout=60) as c:
            fake.push(*(replies or []))
            blocking = c.post("/v1/ask", json=body)
            error = api_error(blocking, status, code)
            assert error["type"] == "model_error"
            if code == "model_overloaded":  # the model server's Retry-After is passed on
                assert blocking.headers["retry-after"] == "1"
            assert "the agent's model failed" in error["message"]
            assert "trajectory " in error["message"]

            fake.push(*(replies or []))
            r = c.post("/v1/ask/stream", json=body)
            assert r.status_code == 200  # the stream had started; its last event says why
            events = parse_events(r.text)
            name, data = events[-1]
            assert name == "error" and error_object(data, code)["type"] == "model_error"

            fake.push(*(replies or []))
            api_error(c.post("/v1/chat/completions", json=chat), status, code)

    runs = [read_trajectory(p) for p in sorted((tmp_path / "traj").glob("*.jsonl"))]
    assert runs
    for events in runs:  # every failed run says why, and which exception ended it
        fatal = [e for e in events if isinstance(e, ErrorEvent) and e.fatal]
        assert len(fatal) == 1 and fatal[0].kind == "model" and fatal[0].cause


def test_ok_model_still_answers_200(app_factory, synth_index, tmp_path):
    with FakeOpenAIServer() as fake:
        app = app_factory(
            llm_client=model_client(fake.url), settings=agent_settings(tmp_path, "text")
        )
        with live_server(app) as srv, httpx.Client(base_url=srv.url, timeout=60) as c:
            body = {"question": "who scored?", "policy": "llm", "mode": "oracle"}
            r = c.post("/v1/ask", json=body)  # oracle: the index has captions, no video
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "answered"
    assert r.json()["usage"] == {"prompt_tokens": 11, "completion_tokens": 7}
