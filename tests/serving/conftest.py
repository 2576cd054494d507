"""Apps over the shared synthetic index (tests/conftest.py), and real servers: the app under
uvicorn on a free loopback port, or FastAPI's TestClient for unit cases."""

from __future__ import annotations

import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi import FastAPI

from playscout.config import ServingSettings, Settings
from playscout.serving.app import create_app
from playscout.serving.protocol import uvicorn_options
from tests.browser import chromium
from tests.synthdata import SynthIndex


def make_settings(tmp_path: Path, index: SynthIndex, **overrides: Any) -> Settings:
    """Settings for a test app: serving fields in `overrides` go to `settings.serving`."""
    serving_fields = set(ServingSettings.model_fields)
    serving = {k: v for k, v in overrides.items() if k in serving_fields}
    data: dict[str, Any] = {
        "index": str(index.index_dir),
        "serving": serving,
        "agent": {"trajectory_dir": tmp_path / "traj", "session_db": tmp_path / "s.sqlite"},
        "eval": {"runs_dir": tmp_path / "runs", "cache_db": None},
        **{k: v for k, v in overrides.items() if k not in serving_fields},
    }
    return Settings.model_validate(data)


def api_error(r: httpx.Response, status: int, code: str | None = None) -> dict[str, Any]:
    """The response is `status` with the API's one error shape (OpenAI's): returns the object."""
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"error"}, body
    return error_object(body, code)


def error_object(body: dict[str, Any], code: str | None = None) -> dict[str, Any]:
    error = body["error"]
    assert set(error) == {"message", "type", "code", "param"}, error
    assert error["message"] and "\n" not in error["message"], error
    assert error["type"] and error["code"], error
    if code is not None:
        assert error["code"] == code, error
    return dict(error)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def answers(url: str, process: subprocess.Popen[Any]) -> bool:
    """Whether a `playscout serve` process answers its health check yet; it must still run."""
    assert process.poll() is None, process.communicate()
    try:
        return httpx.get(f"{url}/healthz").status_code == 200
    except httpx.HTTPError:
        return False


@dataclass
class LiveServer:
    url: str
    server: uvicorn.Server
    thread: threading.Thread

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


def _serving_settings(app: Any) -> ServingSettings:
    """The app's serving settings; the defaults for an app a test wrapped in middleware."""
    state = getattr(getattr(app, "state", None), "serving", None)
    return state.settings.serving if state is not None else ServingSettings()


@contextmanager
def live_server(app: FastAPI, grace_s: float | None = None) -> Iterator[LiveServer]:
    """uvicorn on 127.0.0.1 in a thread: the real HTTP stack, sockets and all."""
    port = free_port()
    options = uvicorn_options(_serving_settings(app), app)  # as `playscout serve` runs it
    if grace_s is not None:
        options["timeout_graceful_shutdown"] = grace_s
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", **options)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    live = LiveServer(f"http://127.0.0.1:{port}", server, thread)
    try:
        yield live
    finally:
        live.stop()


@pytest.fixture
def app_factory(tmp_path: Path, synth_index: SynthIndex):
    def make(**kwargs: Any) -> FastAPI:
        overrides = kwargs.pop("settings", {})
        return create_app(
            make_settings(tmp_path, synth_index, **overrides),
            backend=synth_index.backend,
            **kwargs,
        )

    return make


@pytest.fixture
def client(app_factory) -> Iterator[httpx.Client]:
    from fastapi.testclient import TestClient

    with TestClient(app_factory(), raise_server_exceptions=False) as c:
        yield c


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium per test module (the browser tests skip where it is not installed)."""
    driver = chromium()
    yield driver
    driver.quit()
