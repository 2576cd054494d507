"""Exit codes on every command: 0 answered, 1 finished with failures (the reason printed), 2 a
user error or a failed preflight (one line, before any work). Each failure case of issue 14
is one test here. Model servers are FakeOpenAIServer (real sockets, vLLM's /v1/models shape);
the index is the shared synthetic one (basketball; captions, no video vectors)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from playscout.cli.main import app
from tests.clients.fake_openai_server import FakeOpenAIServer, Reply
from tests.runtime.test_preflight import dead_url
from tests.synthdata import SynthIndex, workflow_calls

runner = CliRunner()


@pytest.fixture
def refusing_model() -> Iterator[FakeOpenAIServer]:
    """Lists its model, then refuses every chat request (HTTP 400, never retried)."""
    with FakeOpenAIServer(lambda body: Reply.error(400, "prompt is too long for this model")) as s:
        yield s


def one_error(result: Result) -> str:
    [line] = [x for x in result.stderr.splitlines() if x.startswith(("error: ", "failed: "))]
    assert "Traceback" not in result.output
    return line


def index_args(synth_index: SynthIndex, *extra: str) -> list[str]:
    return ["--index", str(synth_index.index_dir), "--corpus", str(synth_index.corpus_dir), *extra]


def test_ask_on_an_index_without_what_the_mode_needs(synth_index: SynthIndex) -> None:
    """Was: `status: no_answer`, exit 0, no reason."""
    args = ["ask", synth_index.question, *index_args(synth_index, "--policy", "workflow")]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert one_error(result) == (
        "error: preflight: this index has no video embeddings or speech transcripts for "
        "basketball (default mode cannot search clips); rebuild it with them or run in the "
        "other mode"
    )
    assert "answer:" not in result.stdout  # stopped before the run


def test_ask_unknown_sport_is_exit_2_like_search(synth_index: SynthIndex) -> None:
    """Was: ask exit 0 (`no_answer`), search exit 2."""
    flags = ["--index", str(synth_index.index_dir), "--sport", "curling", "--mode", "oracle"]
    ask = runner.invoke(app, ["ask", "who won?", *flags, "--policy", "workflow"])
    search = runner.invoke(app, ["search", "videos", "dunk", *flags])
    says = "unknown sport 'curling'; this index has ['basketball']"
    assert ask.exit_code == search.exit_code == 2
    assert one_error(ask) == f"error: preflight: {says}" and one_error(search) == f"error: {says}"


def test_ask_with_the_model_server_down_fails_at_once(synth_index: SynthIndex) -> None:
    """Was: five retries (~6 s), then the error."""
    url = dead_url()
    flags = index_args(synth_index, "--mode", "oracle", "--llm-url", url, "--llm-model", "m")
    result = runner.invoke(app, ["ask", "who won?", *flags])
    assert result.exit_code == 2
    assert one_error(result).startswith(
        f"error: preflight: the agent's model (agent.llm): {url}/models is not reachable"
    )
    assert one_error(result).endswith("(--llm-url/--llm-model)")


def test_ask_with_a_model_the_server_does_not_serve(synth_index: SynthIndex) -> None:
    with FakeOpenAIServer(models=["qwen3-8b"]) as srv:
        flags = index_args(synth_index, "--mode", "oracle", "--llm-url", srv.url)
        result = runner.invoke(app, ["ask", "who won?", *flags, "--llm-model", "qwen3-30b"])
    assert result.exit_code == 2
    assert f"{srv.url} serves 'qwen3-8b', not 'qwen3-30b'" in one_error(result)
    assert [r["path"] for r in srv.requests] == ["/v1/models"]  # no chat request was sent


def test_ask_that_ends_without_an_answer_says_why(
    synth_index: SynthIndex, refusing_model: FakeOpenAIServer
) -> None:
    """The run started and finished, but the model refused: exit 1 and the reason."""
    flags = index_args(synth_index, "--mode", "oracle", "--llm-url", refusing_model.url)
    result = runner.invoke(app, ["ask", "who won?", *flags, "--llm-model", "fake-model"])
    assert result.exit_code == 1, result.output
    line = one_error(result)
    assert line.startswith("failed: no answer (error): ModelRejected: chat request to ")
    assert "HTTP 400: prompt is too long for this model" in line


def test_ask_answered_is_exit_0_and_json_is_one_document(synth_index: SynthIndex) -> None:
    flags = index_args(synth_index, "--mode", "oracle", "--policy", "workflow", "--json")
    result = runner.invoke(app, ["ask", synth_index.question, *flags])
    assert result.exit_code == 0, result.output
    body = json.loads(result.stdout)
    assert body["status"] == "answered" and body["reason"] is None
    searches = workflow_calls(synth_index.question).count("search_documents")
    assert body["summary"]["tool_calls"]["search_documents"] == searches


def test_eval_run_without_a_model_stops_before_the_first_question(
    synth_index: SynthIndex, tmp_path: Path
) -> None:
    """Was: every question recorded as `error`, exit 0."""
    run = tmp_path / "run"
    flags = index_args(synth_index, "--out", str(run), "--limit", "1", "--no-cache")
    result = runner.invoke(app, ["eval", "run", *flags])
    assert result.exit_code == 2
    line = one_error(result)
    assert line.startswith(
        "error: preflight: the agent's model (agent.llm) is not configured: set its base_url "
        "and model, or use the workflow policy; "  # then every other reason
    )
    assert "video_qa has no VLM" in line and line.endswith("(--llm-url/--llm-model)")
    assert not run.exists()


def test_eval_run_with_the_model_server_down_stops_before_the_first_question(
    synth_index: SynthIndex, tmp_path: Path
) -> None:
    """Was: every question recorded as `error` after ~6 s of retries, exit 0."""
    run, url = tmp_path / "run", dead_url()
    model = ["--llm-url", url, "--llm-model", "m", "--mode", "oracle"]
    flags = index_args(synth_index, "--out", str(run), "--limit", "2", "--no-cache", *model)
    result = runner.invoke(app, ["eval", "run", *flags])
    assert result.exit_code == 2
    assert one_error(result).startswith(f"error: preflight: the agent's model (agent.llm): {url}")
    assert not run.exists()


def test_eval_run_where_every_question_fails_exits_1_with_the_first_reason(
    synth_index: SynthIndex, refusing_model: FakeOpenAIServer, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    model = ["--llm-url", refusing_model.url, "--llm-model", "fake-model", "--mode", "oracle"]
    flags = index_args(synth_index, "--out", str(run), "--limit", "2", "--no-cache", *model)
    result = runner.invoke(app, ["eval", "run", *flags])
    assert result.exit_code == 1, result.output
    line = one_error(result)
    assert re.match(r"failed: every question failed \(2\); first \(\w+\): ", line), line
    assert "HTTP 400: prompt is too long for this model" in line
    again = runner.invoke(app, ["eval", "run", *flags, "--json"])  # all done: still failed
    assert again.exit_code == 1 and json.loads(again.stdout)["failed"] == 2


def test_eval_run_that_answers_is_exit_0(synth_index: SynthIndex, tmp_path: Path) -> None:
    run = tmp_path / "run"
    flags = ["--out", str(run), "--limit", "2", "--no-cache", "--mode", "oracle"]
    result = runner.invoke(
        app, ["eval", "run", *index_args(synth_index, *flags, "--policy", "workflow", "--json")]
    )
    assert result.exit_code == 0, result.output
    body = json.loads(result.stdout)
    assert body["ran"] == 2 and body["failed"] == 0 and body["first_error"] is None
    assert "t9 oracle: 2/2 done in" in result.stderr  # total and finished (plain lines off a tty)


def test_eval_judge_with_its_server_down(tmp_path: Path) -> None:
    url = dead_url()
    flags = ["--judge", "llm", "--judge-url", url, "--judge-model", "m"]
    result = runner.invoke(app, ["eval", "judge", str(tmp_path), *flags])
    assert result.exit_code == 2
    assert one_error(result).startswith(f"error: preflight: the LLM judge (eval.judge): {url}")


@pytest.mark.parametrize("command", [["eval", "report"], ["eval", "judge"]])
def test_a_folder_that_is_not_a_run(command: list[str], tmp_path: Path) -> None:
    """Was: report a FileNotFoundError traceback; judge `0 judged`, exit 0."""
    result = runner.invoke(app, [*command, str(tmp_path)])
    assert result.exit_code == 2
    assert one_error(result) == (
        f"error: {tmp_path} is not a run directory (no run.json): give the --out of "
        "`playscout eval run`"
    )
