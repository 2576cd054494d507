"""Prometheus metrics on `GET /metrics`: asks (latency by outcome, in flight, refused with
429), tool and model-call latency, tokens, and error responses by status.

Each app has its own registry, so two apps in one process (tests, embedding) never share or
double-register series. Per-ask numbers come from the trajectory events (`MetricsRecorder`),
the same events the trajectory file and the spans are made of; error responses are counted
by an ASGI middleware, so the 401s and 413s of the guards count too.
"""

from __future__ import annotations

from collections.abc import Callable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from playscout.agent.trajectory import ErrorEvent, Event, ModelCall, Observation
from playscout.serving.security import ASGIApp, Message, Receive, Scope, Send

NAMESPACE = "playscout"
ASK_BUCKETS = (0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600)
CALL_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120)


class Metrics:
    def __init__(self, in_flight: Callable[[], float]) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.ask_seconds = Histogram(
            "ask_duration_seconds",
            "Wall time of one ask (blocking, streamed or chat completion), by policy and outcome.",
            ["policy", "outcome"],
            namespace=NAMESPACE,
            buckets=ASK_BUCKETS,
            registry=r,
        )
        self.tool_seconds = Histogram(
            "tool_duration_seconds",
            "Latency of one tool call, by tool and whether it returned an error observation.",
            ["tool", "outcome"],
            namespace=NAMESPACE,
            buckets=CALL_BUCKETS,
            registry=r,
        )
        self.model_seconds = Histogram(
            "model_call_duration_seconds",
            "Latency of one call to the agent's model, by outcome.",
            ["outcome"],
            namespace=NAMESPACE,
            buckets=CALL_BUCKETS,
            registry=r,
        )
        self.tokens = Counter(
            "model_tokens",
            "Tokens the agent's model read (prompt) and wrote (completion).",
            ["kind"],
            namespace=NAMESPACE,
            registry=r,
        )
        self.rejected = Counter(
            "asks_rejected",
            "Asks refused by admission control (HTTP 429).",
            namespace=NAMESPACE,
            registry=r,
        )
        self.errors = Counter(
            "http_errors",
            "Error responses (HTTP status >= 400), by status.",
            ["status"],
            namespace=NAMESPACE,
            registry=r,
        )
        in_flight_gauge = Gauge(
            "asks_in_flight",
            "Agent runs holding an admission slot.",
            namespace=NAMESPACE,
            registry=r,
        )
        in_flight_gauge.set_function(in_flight)

    def recorder(self) -> MetricsRecorder:
        return MetricsRecorder(self)


class MetricsRecorder:
    """A trajectory recorder of one ask: tool and model latencies, tokens."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def record(self, event: Event) -> None:
        m = self.metrics
        if isinstance(event, Observation):
            outcome = "error" if event.error else "ok"
            m.tool_seconds.labels(event.name, outcome).observe(event.latency_s)
        elif isinstance(event, ModelCall):
            m.model_seconds.labels("ok").observe(event.latency_s)
            m.tokens.labels("prompt").inc(event.prompt_tokens)
            m.tokens.labels("completion").inc(event.completion_tokens)
        elif isinstance(event, ErrorEvent) and event.kind == "model":
            m.model_seconds.labels(event.cause or "error").observe(event.latency_s or 0.0)

    def close(self) -> None:
        pass


class ErrorCountMiddleware:
    """Counts every response with status >= 400 by status; 429s also as rejected asks."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def counting_send(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] >= 400:
                status = int(message["status"])
                self.metrics.errors.labels(str(status)).inc()
                if status == 429:
                    self.metrics.rejected.inc()
            await send(message)

        await self.app(scope, receive, counting_send)


def exposition(metrics: Metrics) -> tuple[bytes, str]:
    """The text format Prometheus scrapes, and its content type."""
    from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

    return generate_latest(metrics.registry), CONTENT_TYPE_LATEST
