"""The browser as the attacker, in real headless Chromium (Debian chromium + chromedriver):
the keyless server on 127.0.0.1:P, an attacker's page on another origin of the same machine
(http://localhost:Q, a plain HTTP server: another site to the browser), and a rebound name
(`--host-resolver-rules` maps evil.example to 127.0.0.1, as a DNS rebinding attack does).

The attacker's page can neither read anything nor change anything: its reads fail (no CORS),
its no-cors POSTs and form posts reach the server and are refused (403), a rebound page gets
421 for its same-origin reads. The run browser and the OpenAI facade still work from their
own origin."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from playscout.serving.app import create_app
from tests.browser import CHROMIUM, DRIVER, chromium, show
from tests.serving.conftest import LiveServer, live_server, make_settings
from tests.serving.runs_data import write_run

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (CHROMIUM and DRIVER),
        reason="needs Debian chromium and chromium-driver (apt-get install chromium chromium-driver)",
    ),
]

ATTACKS = """
const api = arguments[0], done = arguments[arguments.length - 1];
const out = {};
async function attempt(name, f) {
  try { const r = await f(); out[name] = r.type === "opaque" ? "sent (opaque)" : "read " + r.status; }
  catch (e) { out[name] = "blocked: " + e.name; }
}
(async () => {
  await attempt("read runs", () => fetch(api + "/v1/runs"));
  await attempt("read trajectories", () => fetch(api + "/v1/trajectories"));
  await attempt("read metrics", () => fetch(api + "/metrics"));
  await attempt("cancel (no-cors, no body)",
    () => fetch(api + "/v1/runs/r1/cancel", {method: "POST", mode: "no-cors"}));
  await attempt("judge (no-cors, no body)",
    () => fetch(api + "/v1/runs/r1/judge", {method: "POST", mode: "no-cors"}));
  await attempt("human verdict (no-cors, text/plain)",
    () => fetch(api + "/v1/runs/r1/questions/q0000/human", {method: "POST", mode: "no-cors",
      headers: {"Content-Type": "text/plain"}, body: JSON.stringify({verdict: "wrong", by: "evil"})}));
  await attempt("ask (no-cors, text/plain)",
    () => fetch(api + "/v1/ask", {method: "POST", mode: "no-cors",
      headers: {"Content-Type": "text/plain"},
      body: JSON.stringify({question: "who won?", policy: "workflow", mode: "oracle"})}));
  await attempt("ask (cors, JSON: needs a preflight)",
    () => fetch(api + "/v1/ask", {method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify({question: "who won?", policy: "workflow", mode: "oracle"})}));
  // a form post into a hidden frame: the oldest cross-site request there is
  const frame = document.createElement("iframe"); frame.name = "sink"; document.body.append(frame);
  const form = document.createElement("form");
  form.method = "POST"; form.action = api + "/v1/ask"; form.enctype = "text/plain"; form.target = "sink";
  const field = document.createElement("input");
  field.name = '{"question": "who won?", "policy": "workflow", "mode": "oracle", "x": "';
  field.value = '"}'; form.append(field); document.body.append(form);
  await new Promise(resolve => { frame.onload = resolve; form.submit(); setTimeout(resolve, 5000); });
  out["form post"] = "submitted";
  done(out);
})();
"""


class AttackerSite:
    """A plain HTTP server on loopback serving one empty page: the attacker's origin."""

    def __init__(self) -> None:
        class Page(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = b"<!doctype html><title>a page the user visits</title><body></body>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:  # `localhost`: another site than 127.0.0.1 to the browser
        return f"http://localhost:{self.server.server_address[1]}"


@pytest.fixture(scope="module")
def site(tmp_path_factory, synth_index) -> Iterator[tuple[LiveServer, Path, str]]:
    tmp = tmp_path_factory.mktemp("cross_origin")
    write_run(tmp / "runs", "r1", 3)
    app = create_app(make_settings(tmp, synth_index), backend=synth_index.backend)
    with live_server(app) as srv:
        yield srv, tmp, synth_index.question


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    driver = chromium("--host-resolver-rules=MAP evil.example 127.0.0.1")
    driver.set_script_timeout(60)
    yield driver
    driver.quit()


def refusals(url: str) -> int:
    """403s and 415s the server answered so far (its own /metrics)."""
    text = httpx.get(f"{url}/metrics", timeout=30).text
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("playscout_http_requests_total")
        and ('status="403"' in line or 'status="415"' in line)
    )


def test_a_page_on_another_origin_reads_and_changes_nothing(site, browser) -> None:
    srv, tmp, _ = site
    run = tmp / "runs" / "r1"
    judged = (run / "judgements.jsonl").read_bytes()
    before = refusals(srv.url)
    attacker = AttackerSite()
    attacker.thread.start()
    try:
        browser.get(f"{attacker.url}/page.html")
        got = browser.execute_async_script(ATTACKS, srv.url)
    finally:
        attacker.server.shutdown()
    for read in ("read runs", "read trajectories", "read metrics"):
        assert got[read].startswith("blocked"), got  # no CORS: the page never sees a byte
    assert got["ask (cors, JSON: needs a preflight)"].startswith("blocked"), got
    # The no-cors requests and the form did reach the server, and were refused there.
    assert refusals(srv.url) - before >= 5, got
    assert not (run / "human_verdicts.jsonl").exists()
    assert (run / "judgements.jsonl").read_bytes() == judged
    assert not list((tmp / "traj").glob("*.jsonl")), "an ask ran"
    assert httpx.get(f"{srv.url}/v1/runs/r1", timeout=30).json()["state"] == "done"


def test_a_rebound_name_gets_421_even_for_its_own_origin(site, browser) -> None:
    srv, _, _ = site
    port = srv.url.rsplit(":", 1)[1]
    rebound = f"http://evil.example:{port}"
    browser.get(f"{rebound}/viewer")  # evil.example now resolves to 127.0.0.1
    assert "misdirected_request" in browser.page_source
    status = browser.execute_async_script(
        "fetch('/v1/trajectories').then(r => arguments[0](r.status), e => arguments[0](String(e)))"
    )
    assert status == 421  # same-origin for the page, so readable: and it says nothing


def test_the_run_browser_and_the_facade_work_from_their_own_origin(site, browser) -> None:
    srv, tmp, question = site
    show(browser, f"{srv.url}/viewer")
    ids = [e.text for e in browser.find_elements("css selector", "table.runs td.id")]
    assert "r1" in ids, ids
    script = """
    const done = arguments[arguments.length - 1];
    const post = (path, body) => fetch(path, {method: "POST",
      headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
    (async () => {
      const mark = await post("/v1/runs/r1/questions/q0001/human", {verdict: "right", by: "me"});
      const chat = await post("/v1/chat/completions", {model: "playscout-agent",
        messages: [{role: "user", content: arguments[0]}], policy: "workflow", mode: "oracle"});
      const body = await chat.json();
      done([mark.status, chat.status, body.choices && body.choices[0].message.content]);
    })();
    """
    mark, chat, answer = browser.execute_async_script(script, question)
    assert mark == 201 and chat == 200 and answer, (mark, chat, answer)
    assert (tmp / "runs" / "r1" / "human_verdicts.jsonl").is_file()
