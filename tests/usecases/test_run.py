"""Starting a batch run is one function, `prepare_run`, which `eval run` and `POST /v1/runs` both
call: the same defaults (the request, then the settings, then what the index and corpus hold),
the same checks naming every reason, the same values refused. Real runs of the workflow policy
on synthetic indexes; the VLM a default-mode run needs is FakeOpenAIServer (a real HTTP
server, scripted), since no VLM runs in the test suite."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from playscout.cli.main import app as cli
from playscout.eval.storage.store import load_results
from playscout.runtime.preflight import PreflightError
from playscout.serving.app import create_app
from playscout.serving.eval_service import EvalRunService
from playscout.usecases import InvalidRequest, LocalRun, RunRequest, prepare_run
from tests.clients.fake_openai_server import FakeOpenAIServer, Reply
from tests.serving.conftest import api_error, make_settings
from tests.synthdata import SynthIndex

runner = CliRunner()


def errors(result: Any) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("error: ")]


def warnings(result: Any) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("warning: ")]


def served(settings: Any, index: SynthIndex) -> TestClient:
    service = EvalRunService(settings, settings.eval, index.backend)
    app = create_app(settings, backend=index.backend, run_service=service)
    return TestClient(app, raise_server_exceptions=False)


def test_sports_default_to_the_corpus_narrowed_to_the_index_and_say_so(
    synth_index: SynthIndex, tmp_path: Path
) -> None:
    """The shared corpus has three sports, its index one: the run takes that one and says so."""
    settings = make_settings(tmp_path, synth_index, corpus_dir=synth_index.corpus_dir)
    request = LocalRun(mode="oracle", policy="workflow")
    prepared = prepare_run(request, settings, backend=synth_index.backend, probe=False)
    assert prepared.spec.sports == ("basketball",)
    assert prepared.warnings == [
        "the index holds basketball of the corpus' basketball, hockey, soccer: running those "
        "(--sport chooses)"
    ]
    hockey = make_settings(tmp_path, synth_index, corpus_dir=synth_index.corpus_dir, sport="hockey")
    with pytest.raises(PreflightError, match="unknown sport 'hockey'"):  # serving.sport first
        prepare_run(request, hockey, backend=synth_index.backend, probe=False)


def test_concurrency_comes_from_the_request_then_the_setting(
    synth_index: SynthIndex, tmp_path: Path
) -> None:
    settings = make_settings(
        tmp_path,
        synth_index,
        eval={"runs_dir": tmp_path / "runs", "cache_db": None, "concurrency": 3},
    )
    base = {"sport": "basketball", "mode": "oracle", "policy": "workflow"}
    backend = synth_index.backend
    assert prepare_run(LocalRun(**base), settings, backend=backend).spec.concurrency == 3
    asked = LocalRun(**base, concurrency=5)
    assert prepare_run(asked, settings, backend=backend).spec.concurrency == 5


def test_a_sport_without_questions_is_skipped_with_one_line(
    heard: SynthIndex, tmp_path: Path
) -> None:
    """Hockey is indexed but has no questions (its file is empty): `eval run` without
    --sport runs basketball and says why hockey is not run, instead of stopping."""
    with FakeOpenAIServer(lambda body: Reply.chat("a jump shot")) as vlm:
        args = ["eval", "run", "--index", str(heard.index_dir), "--corpus", str(heard.corpus_dir)]
        flags = ["--mode", "default", "--policy", "workflow", "--limit", "1", "--no-cache"]
        model = ["--vlm-url", vlm.url, "--vlm-model", "fake-model"]
        out = tmp_path / "run"
        result = runner.invoke(cli, [*args, *flags, *model, "--out", str(out)])
        named = runner.invoke(
            cli, [*args, *flags, *model, "--sport", "hockey", "--out", str(tmp_path / "h")]
        )
    assert result.exit_code == 0, result.output
    [line] = [w for w in warnings(result) if "no questions" in w]
    assert "has no questions for hockey: skipping it" in line
    assert {row.sport for row in load_results(out)} == {"basketball"}
    assert named.exit_code == 2  # a sport the user named is not skipped
    assert "no questions for hockey" in errors(named)[0]


def test_default_mode_without_a_vlm_is_refused_up_front(heard: SynthIndex, tmp_path: Path) -> None:
    """The agent is offered video_qa in default mode: a run without a VLM would end every
    question it needed without an answer, so it is refused like a dead VLM server, on the CLI
    (exit 2, one line) and over HTTP (400, the same line), and no run folder is written."""
    args = ["eval", "run", "--index", str(heard.index_dir), "--corpus", str(heard.corpus_dir)]
    flags = ["--mode", "default", "--policy", "workflow", "--sport", "basketball"]
    result = runner.invoke(cli, [*args, *flags, "--out", str(tmp_path / "cli-run")])
    assert result.exit_code == 2, result.output
    [line] = errors(result)
    assert "video_qa has no VLM (qa.vlm)" in line
    assert not (tmp_path / "cli-run").exists()
    settings = make_settings(tmp_path, heard, corpus_dir=heard.corpus_dir)
    with served(settings, heard) as client:
        body = {"mode": "default", "policy": "workflow", "sport": "basketball"}
        error = api_error(client.post("/v1/runs", json=body), 400, "tool_unavailable")
        assert line.startswith(f"error: {error['message']}")
        assert client.get("/v1/runs").json()["total"] == 0


def test_runs_over_http_take_the_servers_defaults(synth_index: SynthIndex, tmp_path: Path) -> None:
    """A server started in oracle mode with the workflow policy runs a body that names
    neither in oracle mode with the workflow policy, as its asks do (this index has no video
    channel and the server no agent model: the built-in defaults would be refused)."""
    settings = make_settings(
        tmp_path, synth_index, corpus_dir=synth_index.corpus_dir, mode="oracle", policy="workflow"
    )
    with served(settings, synth_index) as client:
        r = client.post("/v1/runs", json={"limit": 1})
        assert r.status_code == 202, r.text
        run = r.json()["id"]
        assert client.app.state.serving.run_service.wait(run, 120)  # type: ignore[attr-defined]
        info = client.get(f"/v1/runs/{run}").json()
    assert (info["state"], info["mode"], info["policy"]) == ("done", "oracle", "workflow")
    assert info["sports"] == ["basketball"]


def test_a_refused_run_names_every_reason_on_both_sides(
    synth_index: SynthIndex, tmp_path: Path
) -> None:
    """No agent model, two sports the index lacks, a mode its clips cannot be searched in and
    no VLM: four reasons, each named, the same line on the CLI (plus the flags that fix the
    first) and over HTTP (its code naming the first)."""
    where = ["--index", str(synth_index.index_dir), "--corpus", str(synth_index.corpus_dir)]
    flags = ["--mode", "default", "--sport", "hockey,soccer,basketball"]
    result = runner.invoke(cli, ["eval", "run", *where, *flags, "--out", str(tmp_path / "r")])
    assert result.exit_code == 2, result.output
    [line] = errors(result)
    settings = make_settings(tmp_path, synth_index, corpus_dir=synth_index.corpus_dir)
    with served(settings, synth_index) as client:
        body = {"sport": "hockey,soccer,basketball", "mode": "default"}
        error = api_error(client.post("/v1/runs", json=body), 400, "policy_unavailable")
    message = error["message"]
    assert line == f"error: {message} (--llm-url/--llm-model)"
    for reason in (
        "the agent's model (agent.llm) is not configured",
        "unknown sport 'hockey'",
        "unknown sport 'soccer'",
        "no video embeddings or speech transcripts for basketball",
        "video_qa has no VLM (qa.vlm)",
    ):
        assert reason in message
    assert "more)" not in message


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--limit", "0"], "limit must be at least 1, not 0"),
        (["--limit", "-3"], "limit must be at least 1, not -3"),
        (["--concurrency", "0"], "concurrency must be at least 1, not 0"),
        (["--mode", "both", "--limit", "0"], "mode must be one of default, oracle, not 'both'"),
        (["--task", "t99"], "unknown task 't99'"),
    ],
)
def test_cli_values_are_checked_by_the_apis_request_model(
    flags: list[str], says: str, tmp_path: Path
) -> None:
    result = runner.invoke(cli, ["eval", "run", *flags, "--out", str(tmp_path / "r")])
    assert result.exit_code == 2, result.output
    [line] = errors(result)
    assert says in line and "Traceback" not in result.output
    assert not (tmp_path / "r").exists()
    with pytest.raises(InvalidRequest, match=says.split(",")[0]):
        LocalRun.of(**_fields(flags))


def _fields(flags: list[str]) -> dict[str, Any]:
    return {k.removeprefix("--"): v for k, v in zip(flags[::2], flags[1::2], strict=True)}


def test_the_api_refuses_the_same_values(synth_index: SynthIndex, tmp_path: Path) -> None:
    settings = make_settings(tmp_path, synth_index)
    with served(settings, synth_index) as client:
        for body, field in (({"limit": 0}, "limit"), ({"mode": "both"}, "mode")):
            assert api_error(client.post("/v1/runs", json=body), 422)["param"] == field
        extra = api_error(client.post("/v1/runs", json={"data": "/etc/passwd"}), 422)
        assert extra["param"] == "data"  # a client names no file on the server
    with pytest.raises(InvalidRequest, match="unknown task 'x'"):
        RunRequest.of(task="x")


def test_strict_refuses_with_every_reason(synth_index: SynthIndex, tmp_path: Path) -> None:
    settings = make_settings(tmp_path, synth_index, corpus_dir=synth_index.corpus_dir)
    request = LocalRun(sport="basketball", mode="oracle", policy="workflow", strict=True)
    with pytest.raises(PreflightError, match=r"--strict: this run could not be .* reasons?\): "):
        prepare_run(request, settings, backend=synth_index.backend)
