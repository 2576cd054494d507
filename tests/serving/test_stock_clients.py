"""A stock OpenAI client sends only `base_url`, `model` and `messages`: the server's defaults
(`serve --sport/--mode/--policy`) and the model aliases choose for it. The official `openai`
SDK against the app under uvicorn on loopback, with no `extra_body`; the workflow policy runs
for real on the shared synthetic index (captions only: no default-mode clip search), the llm
policy over FakeOpenAIServer (a real HTTP server, scripted).

Also the API's parity with the CLI: the same preflight refusal, line for line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from playscout.cli.main import app as cli
from playscout.clients.openai_chat import OpenAIChatClient
from tests.clients.fake_openai_server import FakeOpenAIServer
from tests.synthdata import SynthIndex

from .conftest import api_error, live_server
from .test_openai_sdk import search_then_answer

openai = pytest.importorskip("openai")
AGENT = "playscout-agent"


def sdk(url: str) -> Any:
    return openai.OpenAI(base_url=f"{url}/v1", api_key="none", max_retries=0, timeout=60)


def ask(oa: Any, model: str, question: str) -> Any:
    return oa.chat.completions.create(model=model, messages=[{"role": "user", "content": question}])


def streamed(oa: Any, model: str, question: str) -> tuple[str, list[Any]]:
    stream = oa.chat.completions.create(
        model=model, messages=[{"role": "user", "content": question}], stream=True
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    return text, chunks


def test_server_defaults_answer_a_client_that_sends_only_model_and_messages(
    app_factory, synth_index: SynthIndex
) -> None:
    """As the README starts it: `serve --mode oracle --policy workflow` (no agent model)."""
    app = app_factory(settings={"serving": {"mode": "oracle", "policy": "workflow"}})
    with live_server(app) as srv:
        oa = sdk(srv.url)
        models = {m.id: m for m in oa.models.list()}
        # no agent model: no llm alias; captions only: no default-mode alias
        assert list(models) == [AGENT, "playscout-oracle-workflow"]
        assert models[AGENT].playscout == {
            "sport": "basketball",
            "mode": "oracle",
            "policy": "workflow",
        }
        done = ask(oa, AGENT, synth_index.question)
        assert done.model == AGENT and done.choices[0].message.content
        native = done.playscout
        assert (native["mode"], native["policy"], native["status"]) == (
            "oracle",
            "workflow",
            "answered",
        )
        text, chunks = streamed(oa, AGENT, synth_index.question)
        assert text == done.choices[0].message.content  # the workflow is deterministic
        assert {c.model for c in chunks} == {AGENT}


def test_an_alias_chooses_on_a_server_without_defaults(
    app_factory, synth_index: SynthIndex
) -> None:
    """A plain `serve` (basketball, default, llm; none of it can run here): the alias runs."""
    with live_server(app_factory()) as srv:
        oa = sdk(srv.url)
        assert [m.id for m in oa.models.list()] == [AGENT, "playscout-oracle-workflow"]
        alias = "playscout-oracle-workflow"
        done = ask(oa, alias, synth_index.question)
        assert done.model == alias and done.playscout["policy"] == "workflow"
        assert done.choices[0].message.content
        text, _ = streamed(oa, alias, synth_index.question)
        assert text == done.choices[0].message.content
        qualified = ask(oa, "playscout-basketball-oracle-workflow", synth_index.question)
        assert qualified.choices[0].message.content == text

        with pytest.raises(openai.BadRequestError) as refused:  # the defaults cannot run
            ask(oa, AGENT, synth_index.question)
        assert refused.value.body["code"] == "policy_unavailable"
        with pytest.raises(openai.BadRequestError) as no_video:
            ask(oa, "playscout-default-workflow", synth_index.question)
        assert no_video.value.body["code"] == "mode_unavailable"
        with pytest.raises(openai.NotFoundError) as unlisted:
            oa.models.retrieve("playscout-oracle-llm")
        assert "agent's model (agent.llm) is not configured" in unlisted.value.message
        with pytest.raises(openai.NotFoundError):
            ask(oa, "playscout-curling-oracle-workflow", synth_index.question)


def test_llm_alias_over_a_real_http_model(app_factory, tmp_path: Path, synth_index) -> None:
    with FakeOpenAIServer() as fake:
        client = OpenAIChatClient(fake.url, "fake-model", max_retries=0)
        settings = {"agent": {"tool_protocol": "native", "trajectory_dir": tmp_path / "traj"}}
        app = app_factory(llm_client=client, settings=settings)
        with live_server(app) as srv:
            oa = sdk(srv.url)
            fake.push(*search_then_answer())
            done = ask(oa, "playscout-oracle-llm", synth_index.question)
            fake.push(*search_then_answer())
            text, _ = streamed(oa, "playscout-oracle-llm", synth_index.question)
    assert done.choices[0].message.content == text == "layup"
    assert (done.playscout["mode"], done.playscout["policy"]) == ("oracle", "llm")


def test_request_fields_win_over_the_alias_and_the_defaults(app_factory, synth_index) -> None:
    app = app_factory(settings={"serving": {"mode": "oracle", "policy": "workflow"}})
    q = synth_index.question
    with TestClient(app, raise_server_exceptions=False) as c:
        assert c.post("/v1/ask", json={"question": q}).json()["mode"] == "oracle"
        api_error(c.post("/v1/ask", json={"question": q, "mode": "default"}), 400)
        body = {"model": "playscout-default-workflow", "mode": "oracle"}
        r = c.post(
            "/v1/chat/completions", json={**body, "messages": [{"role": "user", "content": q}]}
        )
        assert r.status_code == 200 and r.json()["playscout"]["mode"] == "oracle"


def test_a_refused_ask_says_what_the_cli_says(app_factory, synth_index: SynthIndex) -> None:
    """A default-mode ask on a captions-only index: exit 2 on the CLI, the same line as a
    400 over the API (was HTTP 200 `no_answer`)."""
    args = ["--index", str(synth_index.index_dir), "--policy", "workflow"]
    result = CliRunner().invoke(cli, ["ask", synth_index.question, *args])
    assert result.exit_code == 2
    [line] = [x for x in result.stderr.splitlines() if x.startswith("error: ")]
    body = {"question": synth_index.question, "mode": "default", "policy": "workflow"}
    with TestClient(app_factory(), raise_server_exceptions=False) as c:
        for path in ("/v1/ask", "/v1/ask/stream"):
            error = api_error(c.post(path, json=body), 400, "mode_unavailable")
            assert f"error: {error['message']}" == line
        assert c.get("/v1/trajectories").json()["total"] == 0  # refused before a run started


def test_serve_stops_on_defaults_it_was_given_that_cannot_run(synth_index: SynthIndex) -> None:
    args = ["serve", "--index", str(synth_index.index_dir), "--mode", "default"]
    result = CliRunner().invoke(cli, [*args, "--policy", "workflow", "--port", "0"])
    assert result.exit_code == 2
    [line] = [x for x in result.stderr.splitlines() if x.startswith("error: ")]
    assert line.startswith(
        "error: the default ask (sport basketball, mode default, policy workflow; --mode, "
        "--policy) cannot run: preflight: this index has no video embeddings"
    )
