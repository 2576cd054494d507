"""Prometheus metrics on `GET /metrics`: asks (latency by outcome, in flight, refused with
429), tool and model-call latency, tokens, error responses by status, requests and their
latency by route, and the batch runs this server runs (questions, tool and model calls and
verdicts by run).

Each app has its own registry, so two apps in one process (tests, embedding) never share or
double-register series. Per-ask numbers come from the trajectory events (`MetricsRecorder`),
the same events the trajectory file and the spans are made of; error responses are counted
by an ASGI middleware, so the 401s and 413s of the guards count too. Requests are labelled by
their route's template (`/v1/runs/{run_id}`), never by the raw path, so a client cannot grow
the label set. A batch run's questions feed the same tool and model series as asks, from their
trajectories (`RunMetrics`, a listener of the run service).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from starlette.routing import BaseRoute, Match

from playscout.agent.trajectory import ErrorEvent, Event, ModelCall, Observation
from playscout.eval.running.spec import RunSpec
from playscout.eval.storage.records import ResultRow
from playscout.serving.security import ASGIApp, Message, Receive, Scope, Send

NAMESPACE = "playscout"
ASK_BUCKETS = (0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600)
CALL_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120)
REQUEST_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
UNMATCHED = "unmatched"  # the route label of a request no route matches (404s, probes)


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
        self.requests = Counter(
            "http_requests",
            "HTTP requests, by method, route template and status.",
            ["method", "route", "status"],
            namespace=NAMESPACE,
            registry=r,
        )
        self.request_seconds = Histogram(
            "http_request_duration_seconds",
            "Time from a request's arrival to its last response byte (a stream's whole length), "
            "by method and route template.",
            ["method", "route"],
            namespace=NAMESPACE,
            buckets=REQUEST_BUCKETS,
            registry=r,
        )
        self.runs_started = Counter(
            "runs_started",
            "Batch runs this server started (POST /v1/runs), by task, mode and policy.",
            ["task", "mode", "policy"],
            namespace=NAMESPACE,
            registry=r,
        )
        self.runs_ended = Counter(
            "runs_ended",
            "Batch runs this server ran that ended, by task and final state.",
            ["task", "state"],
            namespace=NAMESPACE,
            registry=r,
        )
        self.runs_running = Gauge(
            "runs_running",
            "Batch runs this server is running.",
            namespace=NAMESPACE,
            registry=r,
        )
        self.run_questions = Counter(
            "run_questions",
            "Questions a batch run finished, by run, task and status (answered, no_answer, ...).",
            ["run", "task", "status"],
            namespace=NAMESPACE,
            registry=r,
        )
        self.run_tool_calls = Counter(
            "run_tool_calls",
            "Tool calls of a batch run's questions, by run, tool and outcome.",
            ["run", "tool", "outcome"],
            namespace=NAMESPACE,
            registry=r,
        )
        self.run_model_calls = Counter(
            "run_model_calls",
            "Calls to the agent's model by a batch run's questions, by run and outcome.",
            ["run", "outcome"],
            namespace=NAMESPACE,
            registry=r,
        )
        self.question_seconds = Histogram(
            "run_question_duration_seconds",
            "Wall time of one batch-run question, by task and status.",
            ["task", "status"],
            namespace=NAMESPACE,
            buckets=ASK_BUCKETS,
            registry=r,
        )
        self.run_verdicts = Gauge(
            "run_verdicts",
            "A run's verdicts after its last judging through POST /v1/runs/{id}/judge, by run, "
            "judge and verdict (right, wrong, unjudged).",
            ["run", "judge", "verdict"],
            namespace=NAMESPACE,
            registry=r,
        )

    def recorder(self) -> MetricsRecorder:
        return MetricsRecorder(self)

    def judged(self, run_id: str, judge: str, stats: dict[str, Any]) -> None:
        """A run's verdict counts after judging (a gauge: judging again replaces them)."""
        for verdict in ("right", "wrong", "unjudged"):
            self.run_verdicts.labels(run_id, judge, verdict).set(int(stats.get(verdict, 0)))


class MetricsRecorder:
    """A trajectory recorder of one ask: tool and model latencies, tokens."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def record(self, event: Event) -> None:
        m = self.metrics
        outcome = call_outcome(event)
        if isinstance(event, Observation):
            m.tool_seconds.labels(event.name, outcome).observe(event.latency_s)
        elif isinstance(event, ModelCall):
            m.model_seconds.labels(outcome).observe(event.latency_s)
            m.tokens.labels("prompt").inc(event.prompt_tokens)
            m.tokens.labels("completion").inc(event.completion_tokens)
        elif isinstance(event, ErrorEvent) and outcome is not None:  # a failed model call
            m.model_seconds.labels(outcome).observe(event.latency_s or 0.0)

    def close(self) -> None:
        pass


def call_outcome(event: Event) -> str | None:
    """How a tool or model call ended, as the metrics label it (`ok`, `error`, or a failed
    model call's cause); None for an event that is neither call."""
    if isinstance(event, Observation):
        return "error" if event.error else "ok"
    if isinstance(event, ModelCall):
        return "ok"
    if isinstance(event, ErrorEvent) and event.kind == "model":
        return event.cause or "error"
    return None


class RunMetrics:
    """The run service's listener (serving/run_service.RunListener): a batch run's questions move
    the tool, model and token series as asks do, plus the per-run counters."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def run_started(self, run_id: str, spec: RunSpec) -> None:
        self.metrics.runs_started.labels(spec.task, spec.mode, spec.policy).inc()
        self.metrics.runs_running.inc()

    def question_done(
        self, run_id: str, spec: RunSpec, row: ResultRow, events: Sequence[Event]
    ) -> None:
        m = self.metrics
        m.run_questions.labels(run_id, spec.task, row.status).inc()
        m.question_seconds.labels(spec.task, row.status).observe(row.wall_s or 0.0)
        shared = m.recorder()
        for event in events:
            shared.record(event)
            outcome = call_outcome(event)
            if isinstance(event, Observation):
                m.run_tool_calls.labels(run_id, event.name, outcome).inc()
            elif outcome is not None:
                m.run_model_calls.labels(run_id, outcome).inc()

    def run_ended(self, run_id: str, spec: RunSpec, state: str) -> None:
        self.metrics.runs_ended.labels(spec.task, state).inc()
        self.metrics.runs_running.dec()


def route_template(routes: Sequence[BaseRoute], scope: Scope) -> str:
    """The template of the route that handled (or would handle) the request: the router's
    match when it ran, else matched here against `routes` (a request a guard answered: 401,
    413)."""
    route = scope.get("route")
    if route is not None and hasattr(route, "path"):
        return str(route.path)
    partial = None
    for candidate in routes:
        match, _ = candidate.matches(scope)
        if match == Match.FULL:
            return str(getattr(candidate, "path", UNMATCHED))
        if match == Match.PARTIAL and partial is None:  # the path, another method
            partial = str(getattr(candidate, "path", UNMATCHED))
    return partial or UNMATCHED


class HttpMetricsMiddleware:
    """Counts every request by method, route template and status, times it to its last byte,
    and counts error responses (status >= 400) by status; 429s also as rejected asks.
    `routes` are the app's routes (their paths are the templates)."""

    def __init__(self, app: ASGIApp, metrics: Metrics, routes: Sequence[BaseRoute]) -> None:
        self.app = app
        self.metrics = metrics
        self.routes = routes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = 500  # what the client gets when the app raises before it answers
        started = time.perf_counter()

        async def counting_send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                if status >= 400:
                    self.metrics.errors.labels(str(status)).inc()
                if status == 429:
                    self.metrics.rejected.inc()
            await send(message)

        try:
            await self.app(scope, receive, counting_send)
        finally:
            method = scope.get("method", "")
            method = method if method in METHODS else "other"
            route = route_template(self.routes, scope)
            self.metrics.requests.labels(method, route, str(status)).inc()
            elapsed = time.perf_counter() - started
            self.metrics.request_seconds.labels(method, route).observe(elapsed)


def exposition(metrics: Metrics) -> tuple[bytes, str]:
    """The text format Prometheus scrapes, and its content type."""
    from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

    return generate_latest(metrics.registry), CONTENT_TYPE_LATEST
