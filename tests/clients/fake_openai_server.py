"""FakeOpenAIServer: a real HTTP server on 127.0.0.1 speaking OpenAI `/v1/chat/completions`.

It stands in for vLLM where no model can be served cheaply, so the real client, retries,
timeouts and concurrency are exercised over real sockets. Replies are scripted: queue
`Reply` objects (answered in order), and when the queue is empty the default reply answers
(a JSON answer echoing the question, after `latency_s`).

`GET /v1/models` lists `models` (vLLM's shape; `list_models = False`: 404, a server without
the route); with `api_key` set, requests without that bearer key get 401.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # dict/list -> JSON; bytes -> sent as is
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    hang: bool = False  # never answer (until the server stops)

    @classmethod
    def chat(
        cls,
        content: str | None = "ok",
        *,
        reasoning: str | None = None,
        reasoning_key: str = "reasoning_content",
        tool_calls: list[dict[str, Any]] | None = None,
        finish_reason: str = "stop",
        usage: tuple[int, int] = (11, 7),
        model: str = "fake-model",
        delay_s: float = 0.0,
    ) -> Reply:
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if reasoning is not None:
            message[reasoning_key] = reasoning
        if tool_calls is not None:
            message["tool_calls"] = tool_calls
        body = {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
            "usage": {
                "prompt_tokens": usage[0],
                "completion_tokens": usage[1],
                "total_tokens": sum(usage),
            },
        }
        return cls(body=body, delay_s=delay_s)

    @classmethod
    def error(cls, status: int, message: str = "overloaded", **headers: str) -> Reply:
        hdrs = {k.replace("_", "-"): v for k, v in headers.items()}
        return cls(
            status=status, body={"error": {"message": message, "code": status}}, headers=hdrs
        )

    @classmethod
    def context_overflow(cls) -> Reply:
        return cls.error(
            400,
            "This model's maximum context length is 40960 tokens. However, you requested "
            "51234 tokens in the messages. Please reduce the length of the messages.",
        )

    @classmethod
    def garbage(cls) -> Reply:
        return cls(body=b'{"choices": [ this is not json')

    @classmethod
    def hanging(cls) -> Reply:
        return cls(hang=True)


def last_user_text(body: dict[str, Any]) -> str:
    for msg in reversed(body.get("messages", [])):
        if msg.get("role") != "user":
            continue
        content = msg.get("content")
        if isinstance(content, str):
            return content
        return " ".join(p.get("text", "") for p in content if p.get("type") == "text")
    return ""


def echo_answer(body: dict[str, Any]) -> Reply:
    """Default reply: a well-formed QA answer naming the question it saw."""
    text = last_user_text(body)
    question = (
        text.split("Question:", 1)[1].split("\n", 1)[0].strip() if "Question:" in text else ""
    )
    answer = {"answer": f"echo: {question}", "confidence": 0.8, "evidence": "fake server"}
    return Reply.chat(f"<answer>{json.dumps(answer)}</answer>")


class FakeOpenAIServer:
    def __init__(
        self,
        default: Callable[[dict[str, Any]], Reply] = echo_answer,
        latency_s: float = 0.0,
        models: list[str] | None = None,
        api_key: str | None = None,
    ) -> None:
        self.default = default
        self.latency_s = latency_s
        self.models = ["fake-model"] if models is None else models
        self.list_models = True
        self.api_key = api_key
        self.queue: deque[Reply] = deque()
        self.requests: list[dict[str, Any]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        ThreadingHTTPServer.request_queue_size = 128  # many clients connect at once (fan-out)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._server.block_on_close = False
        self._server.handle_error = self._handle_error  # type: ignore[method-assign]
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def _handle_error(self, request: Any, address: Any) -> None:
        """A client that hangs up (one that stopped reading an oversized reply) is no error of
        this server's: only other exceptions are printed, as the standard server does."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            ThreadingHTTPServer.handle_error(self._server, request, address)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def push(self, *replies: Reply) -> FakeOpenAIServer:
        with self._lock:
            self.queue.extend(replies)
        return self

    def start(self) -> FakeOpenAIServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _next(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            if self.queue:
                return self.queue.popleft()
        return self.default(body)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as vLLM (uvicorn) does

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                body = json.loads(raw)
                with server._lock:
                    server.requests.append(
                        {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
                    )
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    self._answer(body)
                finally:
                    with server._lock:
                        server.in_flight -= 1

            def do_GET(self) -> None:
                with server._lock:
                    server.requests.append(
                        {"path": self.path, "body": None, "auth": self.headers.get("Authorization")}
                    )
                if not self._authorised():
                    return
                if self.path != "/v1/models" or not server.list_models:
                    return self._send(Reply.error(404, f"no route {self.path}"))
                data = [{"id": m, "object": "model", "owned_by": "fake"} for m in server.models]
                self._send(Reply(body={"object": "list", "data": data}))

            def _authorised(self) -> bool:
                if (
                    server.api_key
                    and self.headers.get("Authorization") != f"Bearer {server.api_key}"
                ):
                    self._send(Reply.error(401, "invalid API key"))
                    return False
                return True

            def _answer(self, body: dict[str, Any]) -> None:
                if not self._authorised():
                    return
                if self.path != "/v1/chat/completions":
                    return self._send(Reply.error(404, f"no route {self.path}"))
                reply = server._next(body)
                if reply.hang:
                    server._stop.wait(60)
                    return
                delay = reply.delay_s or server.latency_s
                if delay:
                    time.sleep(delay)
                self._send(reply)

            def _send(self, reply: Reply) -> None:
                data = (
                    reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
                )
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        return Handler
