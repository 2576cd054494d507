"""Preparing an ask is one function, `prepare_ask`, which `playscout ask`, `POST /v1/ask` and the
chat facade all call: what the request leaves out comes from the settings (`serving.*`), then
from what the index holds, on the command line as over HTTP; real asks of the workflow policy
over the shared synthetic index (basketball only; captions, no video channel)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from playscout.cli.main import app as cli
from playscout.runtime import Runtime
from playscout.runtime.preflight import PreflightError
from playscout.serving.app import create_app
from playscout.usecases import AskRequest, InvalidRequest, prepare_ask
from tests.serving.conftest import api_error, make_settings
from tests.synthdata import SynthIndex

runner = CliRunner()
QUESTION = "who won?"


def test_the_sport_comes_from_the_request_then_the_settings_then_the_index(
    synth_index: SynthIndex, tmp_path: Path
) -> None:
    settings = make_settings(tmp_path, synth_index, mode="oracle", policy="workflow")
    runtime = Runtime.from_settings(settings, backend=synth_index.backend)
    prepared = prepare_ask(AskRequest(question=QUESTION), runtime=runtime)
    assert (prepared.sport, prepared.mode, prepared.policy) == ("basketball", "oracle", "workflow")
    hockey = make_settings(tmp_path, synth_index, sport="hockey", mode="oracle", policy="workflow")
    runtime = Runtime.from_settings(hockey, backend=synth_index.backend)
    with pytest.raises(PreflightError, match="unknown sport 'hockey'"):
        prepare_ask(AskRequest(question=QUESTION), runtime=runtime)
    asked = prepare_ask(AskRequest(question=QUESTION, sport="basketball"), runtime=runtime)
    assert asked.sport == "basketball"  # the request's own choice first


def test_the_cli_takes_the_settings_defaults_as_the_api_does(
    synth_index: SynthIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`serving.mode`/`serving.policy` set to oracle/workflow: `ask` without --mode/--policy
    answers offline over the captions, as `POST /v1/ask` without them does (the built-in
    default, the llm policy in default mode, cannot run on this index)."""
    monkeypatch.setenv("PLAYSCOUT_SERVING__MODE", "oracle")
    monkeypatch.setenv("PLAYSCOUT_SERVING__POLICY", "workflow")
    result = runner.invoke(cli, ["ask", QUESTION, "--index", str(synth_index.index_dir), "--json"])
    assert result.exit_code in (0, 1), result.output  # answered, or said why not: it ran
    assert '"status"' in result.stdout
    settings = make_settings(tmp_path, synth_index, mode="oracle", policy="workflow")
    app = create_app(settings, backend=synth_index.backend)
    with TestClient(app, raise_server_exceptions=False) as client:
        r = client.post("/v1/ask", json={"question": QUESTION})
    assert r.status_code == 200, r.text
    assert (r.json()["mode"], r.json()["policy"], r.json()["sport"]) == (
        "oracle",
        "workflow",
        "basketball",
    )


def test_a_refused_ask_is_the_same_line_on_both_sides(
    synth_index: SynthIndex, tmp_path: Path
) -> None:
    args = ["ask", QUESTION, "--index", str(synth_index.index_dir), "--sport", "hockey"]
    result = runner.invoke(cli, [*args, "--mode", "oracle"])
    assert result.exit_code == 2, result.output
    [line] = [x for x in result.stderr.splitlines() if x.startswith("error: ")]
    app = create_app(make_settings(tmp_path, synth_index), backend=synth_index.backend)
    with TestClient(app, raise_server_exceptions=False) as client:
        body = {"question": QUESTION, "sport": "hockey", "mode": "oracle"}
        error = api_error(client.post("/v1/ask", json=body), 400, "policy_unavailable")
    assert line == f"error: {error['message']} (--llm-url/--llm-model)"
    assert "unknown sport 'hockey'" in line and "agent's model" in line


def test_cli_values_are_checked_by_the_request_model() -> None:
    with pytest.raises(InvalidRequest, match="mode must be one of default, oracle, not 'video'"):
        AskRequest.of(question=QUESTION, mode="video")
    result = runner.invoke(cli, ["ask", "", "--mode", "oracle"])
    assert result.exit_code == 2 and "question: String should have at least 1 character" in (
        result.stderr
    )


def test_the_tool_protocol_is_one_type() -> None:
    shown = runner.invoke(cli, ["ask", "--help"], env={"COLUMNS": "250"})
    assert "native|text|structured|auto" in shown.stdout.replace(" ", "")
    bad = runner.invoke(cli, ["ask", QUESTION, "--tool-protocol", "xml"])
    assert bad.exit_code == 2 and "'xml' is not one of" in bad.output
