"""Eval-runner throughput: a real OpenAI-compatible HTTP server on 127.0.0.1 whose scripted
model answers in one turn after 200 ms, driven by the T9 runner with the llm policy at
concurrency 1 and 32 (target: >= 20x). The cache is off so every question hits the server.
The server runs in its own process, as a model server does (in-process threads would take the
GIL from the runner being measured), and one unmeasured warm-up run loads what a first run loads.

    .venv/bin/python benchmarks/eval.py [--questions 256] [--latency 0.2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import socket
import tempfile
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from playscout.clients.openai_chat import OpenAIChatClient
from playscout.config import EvalSettings, Settings
from playscout.eval import RunSpec, run_eval_async
from playscout.eval.tasks.t9 import T9Task
from playscout.eval.tasks.task import Instance


def _serve_forever(latency: float, port: multiprocessing.Value) -> None:  # type: ignore[valid-type]
    server = make_server(latency)
    port.value = server.server_address[1]  # type: ignore[attr-defined]
    server.serve_forever()


def serve(latency: float) -> tuple[multiprocessing.Process, int]:
    """The fake model server in a child process; returns it and its port."""
    port = multiprocessing.Value("i", 0)
    proc = multiprocessing.Process(target=_serve_forever, args=(latency, port), daemon=True)
    proc.start()
    deadline = time.time() + 10
    while port.value == 0 and time.time() < deadline:
        time.sleep(0.01)
    if port.value == 0:
        raise RuntimeError("fake model server did not start")
    return proc, int(port.value)


def make_server(latency: float) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", 0)))
            time.sleep(latency)
            body = json.dumps({
                "id": "x", "object": "chat.completion", "model": "scripted",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": "<answer>42</answer>"}}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 3},
            }).encode()  # fmt: skip
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            self.send_response(404)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    class Server(ThreadingHTTPServer):
        request_queue_size = 256  # the stdlib's 5 drops connects under 32 concurrent clients
        daemon_threads = True

        def get_request(self) -> tuple[socket.socket, Any]:
            conn, addr = super().get_request()
            # headers and body go out as two writes: without this, Nagle + delayed ACK add
            # ~40 ms to every kept-alive request, a cost a real server does not have
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return conn, addr

    Handler.protocol_version = "HTTP/1.1"  # keep-alive, as vLLM's server does
    return Server(("127.0.0.1", 0), Handler)


class _FakeBackend:
    """The scripted model never calls a tool; the prompt only asks what the index holds."""

    def sports(self) -> list[str]:
        return ["basketball"]

    def channels(self, sport: str) -> list[str]:
        return []

    def entities(self, sport: str) -> tuple[list[str], list[str]]:
        return [], []

    def search_documents(self, *args: object, **kwargs: object) -> list[object]:
        return []

    def search_clips(self, *args: object, **kwargs: object) -> list[object]:
        return []

    def get_documents(self, sport: str, ids: list[str]) -> list[None]:
        return [None for _ in ids]

    def get_clips(self, sport: str, ids: list[str], include_caption: bool = False) -> list[None]:
        return [None for _ in ids]


async def measure(url: str, n: int, concurrency: int, out: Path) -> float:
    items = [Instance(f"q{i:04d}", "basketball", f"question {i}?", "42") for i in range(n)]
    T9Task.questions = lambda self, env, sports, limit: items  # type: ignore[method-assign]
    settings = Settings(eval=EvalSettings(cache_db=None))
    settings.agent.tool_protocol = "text"
    client = OpenAIChatClient(url, "scripted", timeout_s=30)
    t0 = time.perf_counter()
    spec = RunSpec(
        task="t9",
        mode="oracle",
        policy="llm",
        sports=("basketball",),
        concurrency=concurrency,
        out_dir=out,
    )
    s = await run_eval_async(spec, settings, client=client, backend=_FakeBackend())
    wall = time.perf_counter() - t0
    assert s.statuses.get("answered") == n, s.statuses
    return n / wall


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--questions", type=int, default=256)  # steady state: c=32 runs 512
    ap.add_argument("--latency", type=float, default=0.2)
    args = ap.parse_args()
    proc, port = serve(args.latency)
    url = f"http://127.0.0.1:{port}/v1"
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(measure(url, 4, 1, Path(tmp) / "warmup"))
        one = asyncio.run(measure(url, max(8, args.questions // 4), 1, Path(tmp) / "c1"))
        many = asyncio.run(measure(url, args.questions * 2, 32, Path(tmp) / "c32"))
    proc.terminate()
    print(
        f"latency {args.latency * 1000:.0f} ms, one-turn scripted model, server in its own process"
    )
    print(f"concurrency  1: {one:7.2f} questions/s")
    print(f"concurrency 32: {many:7.2f} questions/s")
    print(f"ratio: {many / one:.1f}x (target >= 20x)")


if __name__ == "__main__":
    main()
