"""A real HTTP server on 127.0.0.1 that speaks the OpenAI `/v1/embeddings` protocol.

It stands in for vLLM (which cannot cheaply serve an embedding model here) and can be told to
misbehave: fail N times, answer 400, be slow, return wrong dims or out-of-order indices.
Vectors are deterministic per text (seeded by its hash) and deliberately not normalised.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np


def fake_vector(text: str, dim: int) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    return np.random.default_rng(seed).normal(size=dim).astype(np.float32) * 3.0


@dataclass
class Behaviour:
    dim: int = 16
    fail_times: int = 0  # answer the next N requests with fail_status
    fail_status: int = 503
    retry_after: str | None = None
    status: int = 200  # a permanent non-200 status (e.g. 400)
    delay_s: float = 0.0
    wrong_dim: int | None = None
    reverse_order: bool = False
    drop_last: bool = False
    raw_body: bytes | None = None  # send these bytes instead of a JSON answer


@dataclass
class FakeEmbeddingServer:
    behaviour: Behaviour = field(default_factory=Behaviour)
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as vLLM (uvicorn) does

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with server.lock:
                    server.requests.append(
                        {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
                    )
                    b = server.behaviour
                    failing = b.fail_times > 0
                    if failing:
                        b.fail_times -= 1
                if b.delay_s:
                    time.sleep(b.delay_s)
                if self.path != "/v1/embeddings":
                    return self._send(404, {"error": {"message": f"no route {self.path}"}})
                if failing:
                    extra = {"Retry-After": b.retry_after} if b.retry_after else {}
                    return self._send(b.fail_status, {"error": {"message": "overloaded"}}, extra)
                if b.status != 200:
                    return self._send(b.status, {"error": {"message": "input is too long"}})
                if b.raw_body is not None:
                    return self._send_bytes(200, b.raw_body)
                dim = b.wrong_dim or b.dim
                data = [
                    {"object": "embedding", "index": i, "embedding": fake_vector(t, dim).tolist()}
                    for i, t in enumerate(body["input"])
                ]
                if b.reverse_order:
                    data.reverse()
                if b.drop_last:
                    data = data[:-1]
                self._send(200, {"object": "list", "data": data, "model": body["model"]})

            def _send(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
                self._send_bytes(status, json.dumps(obj).encode(), headers)

            def _send_bytes(
                self, status: int, payload: bytes, headers: dict[str, str] | None = None
            ) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout tests)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    @property
    def embedding_calls(self) -> int:
        return len(self.requests)

    def start(self) -> FakeEmbeddingServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)
