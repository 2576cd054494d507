"""ScriptedTextTower: a real HTTP server on 127.0.0.1 speaking the SVI-Bench reference's
text-tower API (`tools/serve_internvideo2.py`): `GET /health` -> {status, model_loaded,
mock_mode}; `POST /embed` with {"text"} or {"texts"} -> {"embedding"} or {"embeddings"}.

It stands in for the InternVideo2 text tower, which cannot run here: a query's vector is
`fake_vector(query, dim)`, the same stand-in tests/release_layout.py gives each clip for its
captions, so a query that repeats a clip's captions finds that clip. `mock=True` answers as the
reference's `--mock` mode does (random vectors, mock_mode true)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

from tests.embed.fake_server import fake_vector


class ScriptedTextTower:
    def __init__(self, dim: int = 512, mock: bool = False) -> None:
        self.dim, self.mock = dim, mock
        self.requests: list[dict[str, Any]] = []
        tower = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                tower.requests.append({"path": self.path, "body": None})
                if self.path != "/health":
                    return self._send(404, {"error": "not found"})
                self._send(200, {"status": "healthy", "model_loaded": not tower.mock,
                                 "mock_mode": tower.mock})  # fmt: skip

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                tower.requests.append({"path": self.path, "body": body})
                if self.path not in ("/embed", "/embed_batch"):
                    return self._send(404, {"error": "not found"})
                texts = [body["text"]] if "text" in body else body.get("texts")
                if not isinstance(texts, list):
                    return self._send(400, {"error": 'Missing "text" or "texts" in request'})
                rows = [tower.vector(t) for t in texts]
                if "text" in body:
                    return self._send(200, {"embedding": rows[0]})
                self._send(200, {"embeddings": rows})

            def _send(self, status: int, obj: Any) -> None:
                data = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def vector(self, text: str) -> list[float]:
        if self.mock:  # the reference's --mock: random 1024-d vectors whatever the model
            return np.random.default_rng().normal(size=1024).tolist()
        return fake_vector(text, self.dim).tolist()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    @property
    def embed_calls(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["path"] in ("/embed", "/embed_batch")]

    def __enter__(self) -> ScriptedTextTower:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)
