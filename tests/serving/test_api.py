"""Unit cases through TestClient: every client mistake is a 4xx with a one-line error."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.synthdata import workflow_calls

from .conftest import api_error

ASK = {"policy": "workflow", "mode": "oracle"}


def one_line_error(r, status: int) -> str:
    return str(api_error(r, status)["message"])


def test_ask_workflow_answers_with_evidence(client, synth_index):
    r = client.post("/v1/ask", json={"question": synth_index.question, **ASK})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["status"] == "answered" and body["answer"]
    assert body["policy"] == "workflow"
    assert body["turns"] == len(workflow_calls(synth_index.question))
    assert body["evidence"]["documents"] and body["evidence"]["clips"]
    clip = body["evidence"]["clips"][0]
    assert clip["found"] and clip["video_end"] > clip["video_start"]
    assert 0.0 <= body["confidence"] <= 1.0
    listed = client.get("/v1/trajectories").json()["items"]
    assert [t["id"] for t in listed] == [body["trajectory_id"]]
    assert listed[0]["status"] == "answered" and listed[0]["question"] == synth_index.question


def test_trajectory_fetch_has_events_in_order(client, synth_index):
    tid = client.post("/v1/ask", json={"question": synth_index.question, **ASK}).json()[
        "trajectory_id"
    ]
    t = client.get(f"/v1/trajectories/{tid}").json()
    types = [e["type"] for e in t["events"]]
    assert types[0] == "run_start" and types[-1] == "final_answer"
    calls = workflow_calls(synth_index.question)
    assert types.count("tool_call") == types.count("observation") == len(calls)
    assert [e["seq"] for e in t["events"]] == list(range(1, len(types) + 1))
    assert t["summary"]["tool_calls"] == dict(Counter(calls))


@pytest.mark.parametrize(
    ("payload", "status", "needle"),
    [
        ({"sport": "basketball"}, 422, "question"),
        ({"question": ""}, 422, "question"),
        ({"question": "x" * 2001}, 400, "limit is 2000"),
        ({"question": "   "}, 422, "no visible characters"),
        ({"question": "who?", "sport": "curling", **ASK}, 400, "unknown sport 'curling'"),
        ({"question": "who?", "mode": "turbo"}, 422, "mode"),
        ({"question": "who?", "policy": "magic"}, 422, "policy"),
        ({"question": "who?", "policy": "llm"}, 400, "agent's model (agent.llm) is not"),
        ({"question": "who?", "session_id": "../../etc"}, 422, "session_id"),
        ({"question": "who?", "extra": 1}, 422, "extra"),
        ([1, 2], 422, ""),
    ],
)
def test_bad_ask_is_4xx(client, payload, status, needle):
    for path in ("/v1/ask", "/v1/ask/stream"):
        message = one_line_error(client.post(path, json=payload), status)
        assert needle in message


def test_malformed_json_is_400(client):
    r = client.post(
        "/v1/ask", content=b'{"question": ', headers={"content-type": "application/json"}
    )
    assert "malformed JSON" in one_line_error(r, 400)


def test_body_over_limit_is_413(app_factory):
    from fastapi.testclient import TestClient

    with TestClient(app_factory(settings={"max_body_bytes": 1024})) as c:
        r = c.post("/v1/ask", json={"question": "q" * 5000, **ASK})
        assert "over 1024 bytes" in one_line_error(r, 413)


@pytest.mark.parametrize(
    ("path", "params", "status", "needle"),
    [
        ("/v1/search/documents", {"query": "x", "season": "abc"}, 400, "season"),
        ("/v1/search/documents", {"query": "x", "date": "yesterday"}, 400, "date"),
        ("/v1/search/documents", {}, 400, "query or at least one filter"),
        ("/v1/search/documents", {"query": "x", "sport": "curling"}, 400, "unknown sport"),
        ("/v1/search/videos", {"query": "x", "temporal_boundary": "x"}, 400, "temporal_boundary"),
        ("/v1/search/videos", {"query": "x", "quarter": "first"}, 422, "quarter"),
        ("/v1/search/videos", {"query": "x", "mode": "turbo"}, 422, "mode"),
        ("/v1/search/videos", {"players": "Nobody Atall"}, 400, "no player matches"),
    ],
)
def test_bad_search_is_4xx(client, path, params, status, needle):
    assert needle in one_line_error(client.get(path, params=params), status)


def test_search_returns_typed_results(client, synth_index):
    docs = client.get("/v1/search/documents", params={"query": synth_index.question}).json()
    assert docs["hits"] and docs["hits"][0]["doc_id"]
    game = next(h["record"]["game_id"] for h in docs["hits"] if h["record"]["game_id"])
    clips = client.get(
        "/v1/search/videos",
        params={"query": "three pointer", "game_ids": [game], "mode": "oracle", "quarter": [1, 2]},
    ).json()
    assert clips["channel"] == "caption" and clips["hits"]
    assert {h["record"]["game_id"] for h in clips["hits"]} == {game}
    assert {h["record"]["period"] for h in clips["hits"]} <= {1, 2}


@pytest.mark.parametrize(
    "tid", ["..%2F..%2Fetc%2Fpasswd", "%2E%2E", "a.b", "x" * 150, ".hidden", "a%00b", "-lead"]
)
def test_bad_trajectory_ids_are_404(client, tid):
    r = client.get(f"/v1/trajectories/{tid}")
    assert r.status_code in (404, 422)
    api_error(r, r.status_code)
    v = client.get(f"/viewer/{tid}")
    assert v.status_code in (404, 422)


def test_traversal_never_reads_outside(client, tmp_path):
    secret = tmp_path / "secret.jsonl"
    secret.write_text('{"type":"run_start"}\n')
    r = client.get("/v1/trajectories/..%2Fsecret")
    assert r.status_code == 404


def test_unknown_trajectory_is_404(client):
    assert "no trajectory" in one_line_error(client.get("/v1/trajectories/nope-123"), 404)


def test_runs_are_501_without_service(client):
    assert "RunService" in one_line_error(client.post("/v1/runs", json={}), 501)
    assert "RunService" in one_line_error(client.post("/v1/runs/abc/cancel", json={}), 501)
    # Reading runs needs no service: they are on disk.
    assert client.get("/v1/runs").json()["items"] == []
    assert "no run 'abc'" in one_line_error(client.get("/v1/runs/abc"), 404)


def test_runs_use_a_service(app_factory, tmp_path):
    import time

    from fastapi.testclient import TestClient

    from playscout.eval.errors import RunConflict
    from playscout.eval.storage.status import RunStatus, write_status
    from playscout.usecases import RunRequest

    class RecordingRunService:
        """A RunService that only records submissions and writes them `queued` (the
        protocol and the on-disk status, not a runner)."""

        def __init__(self) -> None:
            self.runs_dir = tmp_path / "runs"
            self.runs: dict[str, RunStatus] = {}

        def submit(self, request: RunRequest) -> RunStatus:
            status = RunStatus(id=f"r{len(self.runs)}", state="queued", created=time.time())
            write_status(self.runs_dir / status.id, status, request=request.model_dump())
            self.runs[status.id] = status
            return status

        def cancel(self, run_id: str) -> RunStatus:
            raise RunConflict(f"run {run_id!r} is queued: nothing to cancel")

    with TestClient(app_factory(run_service=RecordingRunService())) as c:
        r = c.post("/v1/runs", json={"task": "t9", "limit": 2})
        assert r.status_code == 202 and r.json()["state"] == "queued"
        got = c.get(f"/v1/runs/{r.json()['id']}").json()
        assert got["id"] == "r0" and got["task"] == "t9" and got["state"] == "queued"
        assert c.get("/v1/runs").json()["total"] == 1
        assert c.get("/v1/runs/zzz").status_code == 404
        assert "nothing to cancel" in one_line_error(c.post("/v1/runs/r0/cancel", json={}), 409)
        assert c.post("/v1/runs", json={"limit": 0}).status_code == 422
        bad_task = one_line_error(c.post("/v1/runs", json={"task": "t99"}), 422)
        assert "unknown task 't99'" in bad_task and "t9" in bad_task
        assert "unknown sport" in one_line_error(c.post("/v1/runs", json={"sport": "curling"}), 422)
        assert len(c.app.state.serving.run_service.runs) == 1  # refused ones never started


@pytest.mark.parametrize(
    "url",
    [
        "/v1/search/documents?query=win&sport=basketball&k=100000000",
        "/v1/search/videos?query=dunk&sport=basketball&mode=oracle&top_k=5",
        "/v1/trajectories?limit=5&page=2",
    ],
)
def test_unknown_query_parameters_are_422_naming_them(client, url):
    unknown = url.rsplit("&", 1)[1].split("=")[0]
    error = one_line_error(client.get(url), 422)
    assert error.startswith(f"query.{unknown}: unknown query parameter")


def test_declared_query_parameters_still_work(client):
    r = client.get("/v1/search/documents?query=win&sport=basketball&teams=Celtics")
    assert r.status_code == 200, r.text
    assert client.get("/v1/trajectories?limit=5").status_code == 200


def test_auth_on(app_factory, synth_index):
    from fastapi.testclient import TestClient

    with TestClient(app_factory(api_key="s3cret")) as c:
        assert c.get("/v1/trajectories").status_code == 401
        r = c.get("/v1/trajectories", headers={"Authorization": "Bearer wrong"})
        assert "API key" in one_line_error(r, 401) and r.headers["www-authenticate"] == "Bearer"
        assert (
            c.get("/v1/trajectories", headers={"Authorization": "Basic s3cret"}).status_code == 401
        )
        assert (
            c.get("/v1/trajectories", headers={"Authorization": "Bearer s3cret"}).status_code == 200
        )
        assert c.get("/healthz").status_code == 200  # probes need no key
        assert c.get("/viewer").status_code == 200  # the shell has no data in it
        body = {"question": synth_index.question, **ASK}
        assert c.post("/v1/ask", json=body).status_code == 401


def test_auth_off_by_default(client):
    assert client.get("/v1/trajectories").status_code == 200


def test_health_and_ready(client):
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.json()["index"]["sports"] == ["basketball"]
    assert ready.json()["models"]["agent"]["status"] == "not configured"
    assert ready.json()["asks"] == {"in_flight": 0, "running": 0, "limit": 4}


def test_ready_fails_when_a_model_is_down(app_factory):
    from fastapi.testclient import TestClient

    from .conftest import free_port

    dead = {"qa": {"vlm": {"base_url": f"http://127.0.0.1:{free_port()}/v1", "model": "m"}}}
    with TestClient(app_factory(settings=dead)) as c:
        r = c.get("/readyz")
        assert r.status_code == 503 and r.json()["models"]["vlm"]["status"] == "unreachable"


def test_openapi_lists_the_api(client):
    paths = client.get("/openapi.json").json()["paths"]
    for p in (
        "/v1/ask",
        "/v1/ask/stream",
        "/v1/search/documents",
        "/v1/search/videos",
        "/v1/trajectories",
        "/v1/trajectories/{trajectory_id}",
        "/v1/runs",
        "/healthz",
    ):
        assert p in paths
