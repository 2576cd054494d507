"""Preflight over real sockets (FakeOpenAIServer answers GET /v1/models as vLLM does) and the
shared synthetic index (basketball only; caption vectors, no video vectors or transcripts)."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import pytest

from playscout.config import ModelEndpoint, Settings
from playscout.runtime import Runtime
from playscout.runtime.preflight import (
    Check,
    Needs,
    PreflightError,
    as_warnings,
    check_endpoint,
    check_index,
    check_models,
    preflight,
    require,
)
from tests.clients.fake_openai_server import FakeOpenAIServer
from tests.synthdata import SynthIndex


def dead_url() -> str:
    """A loopback port nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def probe(url: str, model: str = "fake-model", **endpoint: Any) -> Check:
    ep = ModelEndpoint(base_url=url, model=model, **endpoint)
    return asyncio.run(check_endpoint("agent", ep, "the agent's model", timeout_s=2.0))


def test_endpoint_serving_the_model_is_ok() -> None:
    with FakeOpenAIServer(models=["fake-model", "other"]) as srv:
        check = probe(srv.url)
    assert (check.severity, check.state) == ("ok", "ok")
    assert srv.requests[0]["path"] == "/v1/models"


def test_wrong_model_names_what_the_server_serves() -> None:
    with FakeOpenAIServer(models=["qwen3-8b"]) as srv:
        check = probe(srv.url, "qwen3-30b")
    assert check.failed and check.state == "wrong model"
    assert check.detail == f"the agent's model: {srv.url} serves 'qwen3-8b', not 'qwen3-30b'"


def test_unreachable_server_is_one_line_at_once() -> None:
    check = probe(dead_url())
    assert check.failed and check.state == "unreachable"
    assert "is not reachable (ConnectError" in check.detail and "\n" not in check.detail


def test_refused_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_KEY", "wrong")
    with FakeOpenAIServer(api_key="right") as srv:
        check = probe(srv.url, api_key_env="MY_KEY")
        monkeypatch.setenv("MY_KEY", "right")
        assert probe(srv.url, api_key_env="MY_KEY").state == "ok"
    assert check.failed and check.state == "refused"
    assert "refused the request (HTTP 401): check the key in $MY_KEY" in check.detail


def test_server_without_a_model_list_warns() -> None:
    with FakeOpenAIServer() as srv:
        srv.list_models = False
        check = probe(srv.url)
    assert check.severity == "warning" and "model 'fake-model' not checked" in check.detail


def test_credentials_in_the_url_never_reach_the_message() -> None:
    check = probe(dead_url().replace("http://", "http://user:secret@"))
    assert check.failed and "secret" not in check.detail and "***@" in check.detail


def test_required_models_must_be_configured() -> None:
    checks = asyncio.run(check_models(Settings(), Needs(agent=True, judge=True)))
    assert [(c.name, c.severity) for c in checks] == [("agent", "error"), ("judge", "error")]
    assert checks[0].detail == (
        "the agent's model (agent.llm) is not configured: set its base_url and model, "
        "or use the workflow policy"
    )
    qa = asyncio.run(check_models(Settings(), Needs(tools=frozenset({"document_qa"}))))
    assert [(c.name, c.state) for c in qa] == [("document_qa", "not configured")]
    assert not qa[0].failed  # document_qa falls back to its offline reader


def test_models_the_run_calls() -> None:
    tools = frozenset({"video_qa", "document_qa"})
    assert Needs(agent=True, tools=tools).roles() == ["agent", "document_qa", "video_qa"]
    oracle = Needs(mode="oracle", tools=tools, judge=True).roles()
    assert oracle == ["document_qa", "caption_qa", "judge"]


def _runtime(synth_index: SynthIndex, **settings: Any) -> Runtime:
    return Runtime.from_settings(
        Settings(index=str(synth_index.index_dir), corpus_dir=synth_index.corpus_dir, **settings),
        backend=synth_index.backend,
    )


def test_unknown_sport(synth_index: SynthIndex) -> None:
    checks = check_index(_runtime(synth_index), Needs(sports=("basketball", "curling")))
    assert [c.detail for c in checks] == ["unknown sport 'curling'; this index has ['basketball']"]


def test_index_without_the_modes_clip_channel(synth_index: SynthIndex) -> None:
    runtime = _runtime(synth_index)
    search = frozenset({"search_videos"})
    [check] = check_index(runtime, Needs(sports=("basketball",), tools=search))
    assert check.failed and "default mode cannot search clips" in check.detail
    assert check_index(runtime, Needs(sports=("basketball",), mode="oracle", tools=search)) == []
    assert check_index(runtime, Needs(sports=("basketball",))) == []  # no clip search


def test_video_qa_without_a_vlm(synth_index: SynthIndex) -> None:
    runtime = _runtime(synth_index)
    agent = check_index(runtime, Needs(tools=frozenset({"video_qa"})))
    assert [(c.name, c.severity) for c in agent] == [("video_qa", "warning")]
    [direct] = check_index(runtime, Needs(tools=frozenset({"video_qa"}), direct=True))
    assert direct.failed and "video_qa has no VLM (qa.vlm)" in direct.detail
    assert check_index(runtime, Needs(mode="oracle", tools=frozenset({"video_qa"}))) == []


def test_require_names_every_failure_and_returns_warnings(synth_index: SynthIndex) -> None:
    runtime = _runtime(synth_index)
    needs = Needs(sports=("curling",), agent=True, tools=frozenset({"video_qa"}))
    checks = preflight(runtime, needs)
    with pytest.raises(PreflightError) as e:
        require(checks)
    assert str(e.value) == (
        "preflight: unknown sport 'curling'; this index has ['basketball']; the agent's model "
        "(agent.llm) is not configured: set its base_url and model, or use the workflow policy"
    )
    assert e.value.check is not None and e.value.check.name == "sport"  # the first: the code
    assert [c.name for c in require(as_warnings(checks))] == ["sport", "video_qa", "agent"]
