"""A real embedded index over a small synthetic corpus (session-scoped), and real servers:
the app under uvicorn on a free loopback port, or FastAPI's TestClient for unit cases."""

from __future__ import annotations

import socket
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
from playscout.search.backend_api import SearchBackend
from playscout.serving.app import create_app


@dataclass
class Index:
    corpus: Path
    index: Path
    backend: SearchBackend
    question: str


@pytest.fixture(scope="session")
def synth_index(tmp_path_factory: pytest.TempPathFactory) -> Index:
    from playscout.corpus import Corpus
    from playscout.indexer.build import build_from_corpus
    from playscout.search import open_backend
    from playscout.synthetic import generate_corpus, generate_questions

    root = tmp_path_factory.mktemp("serving")
    corpus, index = root / "corpus", root / "index"
    generate_corpus(corpus, games=3, seed=1, sports=["basketball"])
    generate_questions(corpus, per_sport=3, seed=1)
    build_from_corpus(corpus, index, sports=["basketball"])
    question = Corpus(corpus).questions("basketball")[0].question
    return Index(corpus, index, open_backend(index), question)


def make_settings(tmp_path: Path, index: Index, **overrides: Any) -> Settings:
    """Settings for a test app: serving fields in `overrides` go to `settings.serving`."""
    serving_fields = set(ServingSettings.model_fields)
    serving = {k: v for k, v in overrides.items() if k in serving_fields}
    data: dict[str, Any] = {
        "index": str(index.index),
        "serving": serving,
        "agent": {"trajectory_dir": tmp_path / "traj", "session_db": tmp_path / "s.sqlite"},
        **{k: v for k, v in overrides.items() if k not in serving_fields},
    }
    return Settings.model_validate(data)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class LiveServer:
    url: str
    server: uvicorn.Server
    thread: threading.Thread

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


@contextmanager
def live_server(app: FastAPI, grace_s: float | None = None) -> Iterator[LiveServer]:
    """uvicorn on 127.0.0.1 in a thread: the real HTTP stack, sockets and all."""
    port = free_port()
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", timeout_graceful_shutdown=grace_s
    )
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
def app_factory(tmp_path: Path, synth_index: Index):
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
