"""Questions made only of characters nobody can see (zero-width spaces, NUL, direction marks,
a byte-order mark, a Hangul filler): before, each ran as a normal ask (200, a trajectory, a
full agent budget). Now each is refused as an empty question is: 422 over HTTP, before any run
is admitted, and exit 2 with one line from the CLI. Over real sockets to uvicorn, and the CLI
as a subprocess."""

from __future__ import annotations

import subprocess

import httpx
import pytest

from tests.serving.conftest import error_object, live_server

from .conftest import cli, error_line

pytestmark = pytest.mark.slow
INVISIBLE = ["\u200b\u200b\u200b", "\x00", "\u200e\u200f", "\ufeff \u2060\t", "\u3164", " \u0301"]
ASK = {"policy": "workflow", "mode": "oracle"}


def test_invisible_questions_are_422_and_run_nothing(app_factory, tmp_path, synth_index):
    with live_server(app_factory()) as srv, httpx.Client(base_url=srv.url, timeout=60) as c:
        for question in INVISIBLE:
            for path in ("/v1/ask", "/v1/ask/stream"):
                r = c.post(path, json={"question": question, **ASK})
                assert r.status_code == 422, (question, r.text)
                error = error_object(r.json(), "invalid_value")
                assert "no visible characters" in error["message"]
            chat = {
                "model": "playscout-agent",
                "messages": [{"role": "user", "content": question}],
                **ASK,
            }
            r = c.post("/v1/chat/completions", json=chat)
            assert r.status_code == 422, (question, r.text)
            assert "no visible characters" in error_object(r.json())["message"]
        assert not list((tmp_path / "traj").glob("*.jsonl"))  # no run was admitted
        # A question with one visible character among them still runs.
        r = c.post("/v1/ask", json={"question": f"\u200b{synth_index.question}\u200e", **ASK})
        assert r.status_code == 200, r.text


@pytest.mark.parametrize("question", ["\u200b\u200b", "\u200e\u200f\u2060", "\x01\x02"])
def test_the_cli_refuses_them_with_exit_2(question, synth_index):
    done = subprocess.run(
        cli("ask", question, "--index", str(synth_index.index_dir), "--policy", "workflow",
            "--mode", "oracle"),
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, (done.returncode, done.stdout[-500:], done.stderr[-500:])
    assert "no visible characters" in error_line(done)
