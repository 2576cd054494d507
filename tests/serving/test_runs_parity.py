"""Batch runs over HTTP as the CLI runs them: several sports (a JSON list or a comma list), the
same preflight refusal line for line, and what they do on `/metrics` (scraped with
`prometheus_client`'s own text parser): questions, tool and model calls by run, verdicts, and
requests by route template. Real runs of the workflow policy on synthetic indexes; the llm
policy over FakeOpenAIServer (a real HTTP server, scripted)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from pydantic import ValidationError
from typer.testing import CliRunner

from playscout.cli.main import app as cli
from playscout.serving.app import create_app
from playscout.serving.eval_service import EvalRunService
from playscout.usecases import RunRequest
from tests.clients.fake_openai_server import FakeOpenAIServer
from tests.synthdata import SynthIndex, index_corpus

from .conftest import api_error, make_settings
from .test_run_faults import model_settings, search_then_answer

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]
TWO = ["basketball", "hockey"]


def scrape(client: TestClient) -> Samples:
    r = client.get("/metrics")
    assert r.status_code == 200
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(r.text)
        for s in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    """The sum over the samples of `name` whose labels include `labels`."""
    want = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and want <= ls)


def labels_of(samples: Samples, name: str, label: str) -> set[str]:
    return {dict(ls)[label] for (n, ls) in samples if n == name and label in dict(ls)}


@pytest.fixture(scope="module")
def two_sports(synth_index: SynthIndex, tmp_path_factory) -> Iterator[SynthIndex]:
    """The shared corpus' basketball and hockey (captions, no video vectors)."""
    index_dir = tmp_path_factory.mktemp("two_sports") / "index"
    backend = index_corpus(synth_index.corpus_dir, index_dir, sports=TWO)
    yield SynthIndex(synth_index.corpus_dir, index_dir, backend)


def test_sports_are_a_json_list_or_a_comma_list() -> None:
    assert RunRequest(sport="hockey, basketball").sport == ["hockey", "basketball"]
    assert RunRequest(sport=["hockey", "basketball", "hockey"]).sport == ["hockey", "basketball"]
    assert RunRequest(sport="basketball").sport == ["basketball"]
    assert RunRequest().sport is None
    with pytest.raises(ValidationError, match="curling"):
        RunRequest(sport=["basketball", "curling"])


def test_a_refused_run_says_what_the_cli_says(app_factory, synth_index, tmp_path) -> None:
    """Hockey is a sport, but not in this index: exit 2 on the CLI, the same line as a 400
    over HTTP, and no run folder."""
    flags = ["--mode", "oracle", "--policy", "workflow", "--out", str(tmp_path / "cli-run")]
    args = ["eval", "run", "--sport", "basketball,hockey", "--index", str(synth_index.index_dir)]
    result = CliRunner().invoke(cli, [*args, *flags])
    assert result.exit_code == 2
    [line] = [x for x in result.stderr.splitlines() if x.startswith("error: ")]
    assert "unknown sport 'hockey'" in line
    settings = make_settings(tmp_path, synth_index)
    service = EvalRunService(settings, settings.eval, synth_index.backend)
    body = {"mode": "oracle", "policy": "workflow"}
    with TestClient(app_factory(run_service=service), raise_server_exceptions=False) as c:
        for sport in ("basketball,hockey", TWO):
            r = c.post("/v1/runs", json={**body, "sport": sport})
            error = api_error(r, 400, "unknown_sport")
            assert f"error: {error['message']}" == line
        refused = api_error(c.post("/v1/runs", json={**body, "mode": "default"}), 400)
        assert refused["code"] == "mode_unavailable"  # no video channel, as `eval run` says
        assert c.get("/v1/runs").json()["total"] == 0


def test_a_run_of_two_sports_moves_the_metrics(two_sports: SynthIndex, tmp_path: Path) -> None:
    settings = make_settings(tmp_path, two_sports, corpus_dir=two_sports.corpus_dir)
    service = EvalRunService(settings, settings.eval, two_sports.backend)
    app = create_app(settings, backend=two_sports.backend, run_service=service)
    body = {"task": "t9", "sport": "basketball,hockey", "mode": "oracle", "policy": "workflow"}
    with TestClient(app, raise_server_exceptions=False) as c:
        before = scrape(c)
        r = c.post("/v1/runs", json={**body, "limit": 1})
        assert r.status_code == 202, r.text
        run = r.json()["id"]
        assert service.wait(run, 120)
        info = c.get(f"/v1/runs/{run}").json()
        assert info["state"] == "done" and sorted(info["sports"]) == TWO
        questions = c.get(f"/v1/runs/{run}/questions").json()["items"]
        assert sorted(q["sport"] for q in questions) == TWO
        judged = c.post(f"/v1/runs/{run}/judge", json={"judge": "equivalence"}).json()
        c.get("/v1/runs/no-such-run")
        c.get("/v1/no/such/path")
        after = scrape(c)

    assert value(before, "playscout_run_questions_total") == 0
    assert value(after, "playscout_run_questions_total", run=run, task="t9") == 2
    searches = value(after, "playscout_run_tool_calls_total", run=run, tool="search_documents")
    assert searches >= 2  # the workflow searches documents once per question at least
    shared = "playscout_tool_duration_seconds_count"  # the asks' histogram moves too
    assert value(after, shared, tool="search_documents") - value(before, shared) >= searches
    assert value(after, "playscout_run_question_duration_seconds_count", task="t9") == 2
    started = "playscout_runs_started_total"
    assert value(after, started, task="t9", mode="oracle", policy="workflow") == 1
    assert value(after, "playscout_runs_ended_total", task="t9", state="done") == 1
    assert value(after, "playscout_runs_running") == 0
    for verdict in ("right", "wrong", "unjudged"):
        got = value(after, "playscout_run_verdicts", run=run, judge="equivalence", verdict=verdict)
        assert got == judged[verdict]

    requests = "playscout_http_requests_total"
    assert value(after, requests, method="POST", route="/v1/runs", status="202") == 1
    assert value(after, requests, method="GET", route="/v1/runs/{run_id}", status="200") == 1
    assert value(after, requests, route="/v1/runs/{run_id}", status="404") == 1
    assert value(after, requests, route="unmatched", status="404") == 1
    routes = labels_of(after, requests, "route")
    assert not any(run in r or "no-such-run" in r for r in routes)  # templates, never paths
    latency = "playscout_http_request_duration_seconds_count"
    assert value(after, latency, method="GET", route="/v1/runs/{run_id}/questions") == 1


def test_a_llm_run_counts_its_model_calls(synth_index: SynthIndex, tmp_path: Path) -> None:
    with FakeOpenAIServer(search_then_answer) as model:
        settings = model_settings(tmp_path, synth_index, model.url)
        service = EvalRunService(settings, settings.eval, synth_index.backend)
        app = create_app(settings, backend=synth_index.backend, run_service=service)
        body = {"task": "t9", "sport": ["basketball"], "mode": "oracle", "policy": "llm"}
        with TestClient(app, raise_server_exceptions=False) as c:
            r = c.post("/v1/runs", json={**body, "limit": 2})
            assert r.status_code == 202, r.text
            run = r.json()["id"]
            assert service.wait(run, 120)
            after = scrape(c)
    calls = value(after, "playscout_run_model_calls_total", run=run, outcome="ok")
    assert calls == 4  # two questions, each a search and an answer
    assert value(after, "playscout_model_call_duration_seconds_count", outcome="ok") == calls
    assert value(after, "playscout_model_tokens_total", kind="prompt") > 0


def test_a_request_a_guard_refused_is_counted_under_its_route(app_factory) -> None:
    """401s are answered before routing; they still count under the route's template."""
    with TestClient(app_factory(api_key="s3cret"), raise_server_exceptions=False) as c:
        assert c.get("/v1/runs/some-run").status_code == 401
        assert c.request("BREW", "/v1/runs/other").status_code == 401
        samples = scrape_with_key(c, "s3cret")
    requests = "playscout_http_requests_total"
    assert value(samples, requests, method="GET", route="/v1/runs/{run_id}", status="401") == 1
    assert value(samples, requests, method="other", route="/v1/runs/{run_id}") == 1


def scrape_with_key(client: TestClient, key: str) -> Samples:
    r = client.get("/metrics", headers={"Authorization": f"Bearer {key}"})
    assert r.status_code == 200
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(r.text)
        for s in family.samples
    }
