"""The LLM judge honours its endpoint (issue 34, item 4): its temperature and reasoning effort
as eval.judge sets them, its budget (eval.judge_max_tokens) as `max_completion_tokens` for the
GPT-5 family and `max_tokens` for an open model, as the agent's client sends them; every
verdict records the model that gave it; reports name the judges that produced the verdicts,
not the one configured; `eval judge` carries the run's judge settings.

The judge is a scripted OpenAI-compatible server (FakeOpenAIServer); `pytest -s` prints the
request bodies."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from playscout.cli.main import app
from playscout.config import EvalSettings, ModelEndpoint
from playscout.eval.results.report import write_report
from playscout.eval.running.judge import make_judge
from playscout.eval.storage.store import judgements_store
from tests.clients.fake_openai_server import FakeOpenAIServer, Reply
from tests.synthdata import SynthIndex

runner = CliRunner()
VERDICT = Reply.chat('{"verdict": "Right", "reason": "same"}')


def _body(model: str, **endpoint: object) -> dict[str, object]:
    with FakeOpenAIServer(lambda body: VERDICT, models=[model]) as srv:
        ev = EvalSettings(judge=ModelEndpoint(base_url=srv.url, model=model, **endpoint),
                          judge_max_tokens=2048, cache_db=None)  # type: ignore[arg-type]  # fmt: skip
        judge = make_judge("llm", ev, "fig42")
        verdict = asyncio.run(judge.judge("Who scored?", "Stephen Curry", "Curry"))
    assert verdict.verdict == "right"
    [request] = [r for r in srv.requests if r["path"] == "/v1/chat/completions"]
    body = dict(request["body"])
    print(f"\n{model}: " + json.dumps({k: v for k, v in body.items() if k != "messages"}))
    return body


def test_a_gpt5_family_judge_gets_max_completion_tokens_and_its_effort() -> None:
    body = _body("gpt-5.2", temperature=1.0, reasoning_effort="low")
    assert body["max_completion_tokens"] == 2048 and "max_tokens" not in body
    assert body["temperature"] == 1.0 and body["reasoning_effort"] == "low"
    assert body["messages"][0]["content"].startswith("You are a strict grader.")


def test_a_gpt5_judge_without_an_effort_still_gets_max_completion_tokens() -> None:
    body = _body("openai/gpt-5.2", temperature=1.0)  # a provider prefix, no effort set
    assert body["max_completion_tokens"] == 2048 and "max_tokens" not in body
    assert "reasoning_effort" not in body


def test_an_open_judge_gets_max_tokens_and_its_temperature() -> None:
    body = _body("Qwen/Qwen3-235B-A22B-Thinking-2507-FP8", temperature=0.6, top_p=0.95)
    assert body["max_tokens"] == 2048 and "max_completion_tokens" not in body
    assert (body["temperature"], body["top_p"]) == (0.6, 0.95)
    assert "reasoning_effort" not in body


def _workflow_run(synth_index: SynthIndex, out: Path, *more: str) -> None:
    result = runner.invoke(app, ["eval", "run", "--out", str(out), "--index", str(synth_index.index_dir),
                                 "--corpus", str(synth_index.corpus_dir), "--policy", "workflow",
                                 "--mode", "oracle", "--limit", "1", "--no-cache", *more])  # fmt: skip
    assert result.exit_code == 0, result.output


def test_eval_judge_carries_the_runs_judge_settings_and_records_the_model(
    synth_index: SynthIndex, tmp_path: Path
) -> None:
    run = tmp_path / "r"
    with FakeOpenAIServer(lambda body: VERDICT, models=["gpt-5.2"]) as srv:
        _workflow_run(synth_index, run, "--judge-url", srv.url, "--judge-model", "gpt-5.2",
                      "--set", "eval.judge.reasoning_effort=high", "--set", "eval.judge_max_tokens=300")  # fmt: skip
        judged = runner.invoke(app, ["eval", "judge", str(run)])  # no judge flags: the run's
        bodies = [r["body"] for r in srv.requests if r["path"] == "/v1/chat/completions"]
    assert judged.exit_code == 0, judged.output
    assert "judge llm gpt-5.2" in judged.output
    assert bodies and all(
        (b["model"], b["temperature"], b["reasoning_effort"], b["max_completion_tokens"])
        == ("gpt-5.2", 1.0, "high", 300)
        for b in bodies
    )
    records = list(judgements_store(run).latest().values())
    assert records and all(r["model"] == "gpt-5.2" for r in records)


def test_reports_name_the_judge_that_judged_not_the_configured_one(
    synth_index: SynthIndex, tmp_path: Path
) -> None:
    run = tmp_path / "r"
    url = "http://127.0.0.1:9/v1"  # configured, never asked
    _workflow_run(synth_index, run, "--judge-url", url, "--judge-model", "gpt-5.2")
    assert runner.invoke(app, ["eval", "judge", str(run), "--judge", "equivalence"]).exit_code == 0
    write_report([run], plots=False)
    md = (run / "report.md").read_text()
    [line] = [x for x in md.splitlines() if x.startswith("- oracle (workflow)")]
    assert "judge: equivalence, models:" in line and "gpt-5.2" not in line


@pytest.mark.parametrize("model", ["gpt-5", "gpt-5.2-2025-12-11", "o3-mini", "openai/o1"])
def test_the_reasoning_families_by_name(model: str) -> None:
    from playscout.clients.chat import ChatParams
    from playscout.clients.wire import takes_completion_tokens

    assert takes_completion_tokens(model, ChatParams())
    assert not takes_completion_tokens("qwen3-omni-30b", ChatParams())
    assert not takes_completion_tokens("smollm2-o3-test", ChatParams())
