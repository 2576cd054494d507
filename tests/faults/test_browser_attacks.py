"""A web page as the attacker, over real sockets to uvicorn (as `playscout serve` runs it).

DNS rebinding: a page on evil.example whose name now resolves to 127.0.0.1 talks to the
keyless server with `Host: evil.example`; before, it read every run, trajectory and metric
and started asks and batch runs (200/202). Cross-site requests: a body-less POST from another
origin needs no preflight; before, it cancelled a running batch run (202) and ran the judge
(200). The headers are the ones a browser sends (tests/faults/test_cross_origin_browser.py
drives a real Chromium through the same server)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from playscout.serving.app import create_app
from playscout.serving.eval_service import EvalRunService
from tests.clients.fake_openai_server import FakeOpenAIServer, Reply
from tests.serving.conftest import LiveServer, error_object, live_server
from tests.serving.test_run_faults import RUN, model_settings, wait_for

pytestmark = pytest.mark.slow
EVIL = "http://evil.example"
ASK = {"policy": "workflow", "mode": "oracle"}


def always_search(body: dict[str, Any]) -> Reply:
    return Reply.chat(
        '<tool_call>{"name": "search_documents", "arguments": {"query": "score"}}</tool_call>'
    )


@pytest.fixture
def server(tmp_path, synth_index) -> Iterator[tuple[LiveServer, Any]]:
    """A keyless server with a batch-run service whose runs stay busy (the model answers
    every call with another search, 0.2 s later)."""
    with FakeOpenAIServer(always_search, latency_s=0.2) as model:
        settings = model_settings(tmp_path, synth_index, model.url, concurrency=1)
        service = EvalRunService(settings, settings.eval, synth_index.backend)
        app = create_app(settings, backend=synth_index.backend, run_service=service)
        with live_server(app) as srv:
            yield srv, service


def refused(r: httpx.Response, status: int, code: str) -> str:
    assert r.status_code == status, (r.status_code, r.text[:300])
    return str(error_object(r.json(), code)["message"])


def test_a_rebound_host_reads_and_starts_nothing(server, tmp_path, synth_index):
    srv, _ = server
    port = srv.url.rsplit(":", 1)[1]
    rebound = {"Host": f"evil.example:{port}"}
    with httpx.Client(base_url=srv.url, timeout=30) as c:
        for path in ("/v1/runs", "/v1/trajectories", "/metrics", "/viewer", "/v1/models"):
            message = refused(c.get(path, headers=rebound), 421, "misdirected_request")
            assert "'evil.example' is not this server's address" in message
        ask = {"question": synth_index.question, **ASK}
        refused(c.post("/v1/ask", json=ask, headers=rebound), 421, "misdirected_request")
        refused(c.post("/v1/runs", json=RUN, headers=rebound), 421, "misdirected_request")
        assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").iterdir())
        assert not list((tmp_path / "traj").glob("*.jsonl"))
        # Its own addresses still answer: the one it listens on, localhost, and no Host at all.
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST:{port}"):
            assert c.get("/v1/runs", headers={"Host": host}).status_code == 200
        assert c.post("/v1/ask", json=ask).status_code == 200


def test_an_api_key_needs_no_host_check(app_factory, monkeypatch):
    monkeypatch.setenv("PLAYSCOUT_API_KEY", "k3y")
    with live_server(app_factory()) as srv, httpx.Client(base_url=srv.url, timeout=30) as c:
        rebound = {"Host": "evil.example"}
        refused(c.get("/v1/runs", headers=rebound), 401, "invalid_api_key")  # no key to send
        keyed = {**rebound, "Authorization": "Bearer k3y"}
        assert c.get("/v1/runs", headers=keyed).status_code == 200


def test_allowed_hosts_extend_the_list(app_factory):
    app = app_factory(settings={"allowed_hosts": ["playscout.lan"]})
    with live_server(app) as srv, httpx.Client(base_url=srv.url, timeout=30) as c:
        assert c.get("/v1/runs", headers={"Host": "playscout.lan:80"}).status_code == 200
        refused(c.get("/v1/runs", headers={"Host": "other.lan"}), 421, "misdirected_request")


def test_cross_site_posts_change_nothing(server, tmp_path):
    srv, service = server
    with httpx.Client(base_url=srv.url, timeout=30) as c:
        run_id = c.post("/v1/runs", json=RUN).json()["id"]
        wait_for(lambda: c.get(f"/v1/runs/{run_id}").json()["state"] == "running", 60, "running")
        # What a page on evil.example can send without a preflight: a body-less POST (a form,
        # fetch with mode no-cors), with the browser's Origin and Sec-Fetch-Site.
        for headers in ({"Origin": EVIL}, {"Origin": "null"}, {"Sec-Fetch-Site": "cross-site"}):
            for action in ("cancel", "judge"):
                r = c.post(f"/v1/runs/{run_id}/{action}", headers=headers)
                assert "refused" in refused(r, 403, "cross_origin_refused")
        # A browser that sends neither header can still only send a simple request.
        form = {"Content-Type": "application/x-www-form-urlencoded"}
        for action in ("cancel", "judge"):
            r = c.post(f"/v1/runs/{run_id}/{action}", content=b"a=1", headers=form)
            assert "needs a JSON body" in refused(r, 415, "json_body_required")
        text_ask = c.post(
            "/v1/ask",
            content=json.dumps({"question": "who won?", **ASK}),
            headers={"Content-Type": "text/plain"},
        )
        refused(text_ask, 415, "json_body_required")
        time.sleep(0.5)
        info = c.get(f"/v1/runs/{run_id}").json()
        assert info["state"] == "running", info  # not cancelled
        assert not (tmp_path / "runs" / run_id / "judgements.jsonl").exists()  # not judged
        # The same requests from the server's own origin (or a client that is no browser).
        same = {"Origin": srv.url, "Sec-Fetch-Site": "same-origin", "X-Requested-With": "fetch"}
        r = c.post(f"/v1/runs/{run_id}/cancel", headers=same)
        assert r.status_code == 202, r.text
        assert service.wait(run_id, 60)
        assert c.get(f"/v1/runs/{run_id}").json()["state"] == "cancelled"
        assert c.post(f"/v1/runs/{run_id}/judge", json={}).status_code == 200


def test_cross_site_reads_are_refused_but_links_open(server):
    srv, _ = server
    with httpx.Client(base_url=srv.url, timeout=30) as c:
        fetch = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "cors"}
        refused(c.get("/v1/trajectories", headers=fetch), 403, "cross_origin_refused")
        refused(
            c.get("/v1/runs", headers={"Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "no-cors"}),
            403,
            "cross_origin_refused",
        )
        # A link to the run browser from another site (a trace UI, a chat) still opens it.
        link = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"}
        assert c.get("/viewer", headers=link).status_code == 200
