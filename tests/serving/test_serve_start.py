"""`playscout serve` as a newcomer starts it, as a real process: what it prints (where the run
browser, the docs and the OpenAI API are; warnings only about what the defaults use), `/`
leading to the run browser, and a port already taken refused in one line before anything
says the API serves there."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator

import httpx
import pytest
from fastapi.testclient import TestClient

from tests.serving.conftest import answers, free_port
from tests.synthdata import SynthIndex

pytestmark = pytest.mark.slow


def serve_cmd(synth_index: SynthIndex, port: int, *flags: str) -> list[str]:
    return [sys.executable, "-m", "playscout", "serve", "--index", str(synth_index.index_dir),
            "--corpus", str(synth_index.corpus_dir), "--port", str(port), *flags]  # fmt: skip


@pytest.fixture(scope="module")
def served(synth_index: SynthIndex, tmp_path_factory) -> Iterator[tuple[str, int, list[str]]]:
    """An oracle/workflow server as the README's tour starts it: its URL, its port, and what
    it printed to stderr up to uvicorn's "startup complete"."""
    from tests.faults.conftest import wait_for

    tmp = tmp_path_factory.mktemp("serve")
    env = {**os.environ, "PLAYSCOUT_AGENT__TRAJECTORY_DIR": str(tmp / "traj"),
           "PLAYSCOUT_AGENT__SESSION_DB": str(tmp / "s.sqlite"),
           "PLAYSCOUT_EVAL__RUNS_DIR": str(tmp / "runs")}  # fmt: skip
    port = free_port()
    cmd = serve_cmd(synth_index, port, "--mode", "oracle", "--policy", "workflow")
    server = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              env=env)  # fmt: skip
    assert server.stderr is not None
    printed: list[str] = []
    reader = threading.Thread(target=lambda: printed.extend(server.stderr), daemon=True)  # type: ignore[arg-type]
    reader.start()
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: answers(url, server), 180, "server up")
        wait_for(lambda: any("startup complete" in x for x in printed), 60, "uvicorn's line")
        yield url, port, [x.rstrip("\n") for x in printed]
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=60)
        reader.join(timeout=10)


def test_it_says_where_the_viewer_and_docs_are_and_warns_of_nothing_it_does_not_use(
    served,
) -> None:
    """Oracle mode and the workflow policy use no video vectors, VLM or agent model: none is
    warned about (were four warnings about default mode)."""
    url, _, printed = served
    ours = printed[: next(i for i, x in enumerate(printed) if x.startswith("INFO:"))]
    assert ours == [
        "asks that name nothing (model playscout-agent): sport basketball, mode oracle, "
        "policy workflow",
        f"playscout API on {url} (no auth)",
        f"  run browser (runs, asks, trajectories): {url}/viewer",
        f"  API docs: {url}/docs",
        f"  OpenAI-compatible API: {url}/v1 (model playscout-agent)",
    ]
    assert httpx.get(f"{url}/docs").status_code == 200


def test_root_leads_to_the_run_browser(served) -> None:
    url, _, _ = served
    r = httpx.get(f"{url}/", follow_redirects=False)
    assert r.status_code == 307 and r.headers["location"] == "/viewer"
    page = httpx.get(f"{url}/", follow_redirects=True)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert str(page.url) == f"{url}/viewer"


def test_root_redirects_without_the_api_key_the_api_needs(app_factory) -> None:
    os.environ["PLAYSCOUT_TEST_SERVE_KEY"] = "s3cret"
    try:
        app = app_factory(settings={"serving": {"api_key_env": "PLAYSCOUT_TEST_SERVE_KEY"}})
        with TestClient(app) as c:
            r = c.get("/", follow_redirects=False)
            assert r.status_code == 307 and r.headers["location"] == "/viewer"
            assert c.get("/v1/runs").status_code == 401  # the data still needs the key
    finally:
        del os.environ["PLAYSCOUT_TEST_SERVE_KEY"]


def test_a_port_in_use_is_one_line_and_exit_2_before_serving(
    served, synth_index: SynthIndex
) -> None:
    _, port, _ = served
    taken = subprocess.run(serve_cmd(synth_index, port, "--mode", "oracle", "--policy",
                                     "workflow"), capture_output=True, text=True, timeout=120)  # fmt: skip
    assert taken.returncode == 2, taken.stderr
    assert taken.stderr.splitlines() == [
        f"error: port {port} on 127.0.0.1 is in use (another server?): stop it or pass --port N"
    ]
    assert "serving" not in taken.stdout and "API on" not in taken.stdout
