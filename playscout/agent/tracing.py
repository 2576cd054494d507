"""OpenTelemetry spans of agent runs, made from the trajectory events.

A `SpanRecorder` is one more trajectory recorder: every run already emits typed events with
timestamps and latencies, so the spans follow from them and the agent's loop carries no
tracing code. Names and attributes follow the OpenTelemetry GenAI semantic conventions
(`invoke_agent`, `chat`, `execute_tool`; `gen_ai.*` attributes), and each span also carries
its OpenInference kind (`openinference.span.kind` AGENT / LLM / TOOL) so Phoenix-style
viewers group them.

The OpenTelemetry packages are imported only when a tracer is asked for, so `import
playscout` and runs without tracing never load them. `otlp_tracer` builds the exporting
tracer from `TelemetrySettings`; tests hand a tracer of their own (an in-memory exporter).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from playscout.agent.trajectory import (
    ErrorEvent,
    Event,
    FinalAnswer,
    ModelCall,
    Observation,
    RunStart,
    ToolCallEvent,
)
from playscout.config import TelemetrySettings
from playscout.errors import PlayscoutError

AGENT_NAME = "playscout-agent"
INSTRUMENTATION = "playscout.agent"
PROVIDER = "openai"  # the wire protocol: every agent model is an OpenAI-compatible server


class TelemetryUnavailable(PlayscoutError, RuntimeError):
    """Tracing is configured but its packages are not installed: names the extra."""


def _ns(seconds: float) -> int:
    return int(seconds * 1e9)


def server_attributes(base_url: str | None) -> dict[str, Any]:
    """`server.address` / `server.port` of the model endpoint (no path, no credentials)."""
    if not base_url:
        return {}
    parts = urlsplit(base_url)
    if not parts.hostname:
        return {}
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return {"server.address": parts.hostname, "server.port": port}


class SpanRecorder:
    """One run's spans: `invoke_agent` from run_start to final_answer (or close), a `chat` span
    per model call (failed ones too, with `error.type`), an `execute_tool` span per tool call.

    `request` holds the attributes every chat span shares (model settings, server address);
    `capture_content` adds the question and the answer (`input.value` / `output.value`), off by
    default because they may be private."""

    def __init__(
        self,
        tracer: Any,
        request: Mapping[str, Any] | None = None,
        *,
        capture_content: bool = False,
    ) -> None:
        self.tracer = tracer
        self.request = dict(request or {})
        self.capture_content = capture_content
        self.run_span: Any = None
        self.model: str | None = None
        self.tools: dict[int, tuple[Any, ToolCallEvent]] = {}  # by turn: one call per turn
        self.tokens = [0, 0]

    # ------------------------------------------------------------------ recorder protocol

    def record(self, event: Event) -> None:
        if isinstance(event, RunStart):
            self._start_run(event)
        elif self.run_span is None:
            return
        elif isinstance(event, ModelCall):
            self._model_call(event)
        elif isinstance(event, ToolCallEvent):
            self._tool_call(event)
        elif isinstance(event, Observation):
            self._observation(event)
        elif isinstance(event, ErrorEvent):
            self._error(event)
        elif isinstance(event, FinalAnswer):
            self._finish(event)

    def close(self) -> None:
        """A run that never reached its final answer (cancelled, crashed) still ends its spans."""
        for span, _ in self.tools.values():
            self._set_error(span, "cancelled", "the run ended during the tool call")
            span.end()
        self.tools.clear()
        if self.run_span is not None:
            if self.run_span.is_recording():
                self._set_error(self.run_span, "cancelled", "the run ended without an answer")
            self.run_span.end()
            self.run_span = None

    # ------------------------------------------------------------------ spans

    def _child(self, name: str, kind: str, start_s: float, attributes: dict[str, Any]) -> Any:
        from opentelemetry import trace

        context = trace.set_span_in_context(self.run_span)
        return self.tracer.start_span(
            name,
            context=context,
            kind=getattr(trace.SpanKind, kind),
            attributes=attributes,
            start_time=_ns(start_s),
        )

    def _start_run(self, event: RunStart) -> None:
        from opentelemetry import trace

        self.model = event.model
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": AGENT_NAME,
            "openinference.span.kind": "AGENT",
            "playscout.run_id": event.run_id,
            "playscout.policy": event.policy,
            "playscout.mode": event.mode,
            "playscout.sport": event.sport,
        }
        if event.model:
            attributes["gen_ai.request.model"] = event.model
            attributes["gen_ai.provider.name"] = PROVIDER
        if event.session_id:
            attributes["gen_ai.conversation.id"] = event.session_id
        if self.capture_content:
            attributes["input.value"] = event.question
        self.run_span = self.tracer.start_span(
            f"invoke_agent {AGENT_NAME}",
            kind=trace.SpanKind.INTERNAL,
            attributes=attributes,
            start_time=_ns(event.ts),
        )

    def _chat_attributes(self) -> dict[str, Any]:
        attributes = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": PROVIDER,
            "openinference.span.kind": "LLM",
            **self.request,
        }
        if self.model:
            attributes["gen_ai.request.model"] = self.model
            attributes["llm.model_name"] = self.model
        return attributes

    def _model_call(self, event: ModelCall) -> None:
        attributes = self._chat_attributes()
        attributes.update(
            {
                "gen_ai.usage.input_tokens": event.prompt_tokens,
                "gen_ai.usage.output_tokens": event.completion_tokens,
                "llm.token_count.prompt": event.prompt_tokens,
                "llm.token_count.completion": event.completion_tokens,
                "llm.token_count.total": event.prompt_tokens + event.completion_tokens,
                "playscout.turn": event.turn,
            }
        )
        if event.finish_reason:
            attributes["gen_ai.response.finish_reasons"] = [event.finish_reason]
        self.tokens[0] += event.prompt_tokens
        self.tokens[1] += event.completion_tokens
        span = self._child(
            f"chat {self.model or ''}".strip(), "CLIENT", event.ts - event.latency_s, attributes
        )
        span.end(end_time=_ns(event.ts))

    def _tool_call(self, event: ToolCallEvent) -> None:
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": event.name,
            "gen_ai.tool.type": "function",
            "openinference.span.kind": "TOOL",
            "tool.name": event.name,
            "playscout.turn": event.turn,
        }
        if event.call_id:
            attributes["gen_ai.tool.call.id"] = event.call_id
        span = self._child(f"execute_tool {event.name}", "INTERNAL", event.ts, attributes)
        self.tools[event.turn] = (span, event)

    def _observation(self, event: Observation) -> None:
        found = self.tools.pop(event.turn, None)
        if found is None:
            return
        span, _ = found
        span.set_attribute("playscout.observation_tokens", event.tokens)
        if event.error:
            self._set_error(span, "tool_error", event.error)
        span.end(end_time=_ns(event.ts))

    def _error(self, event: ErrorEvent) -> None:
        if event.kind == "model":  # the failed call has no model_call event: its span is here
            attributes = self._chat_attributes()
            if event.turn is not None:
                attributes["playscout.turn"] = event.turn
            latency = event.latency_s or 0.0
            span = self._child(
                f"chat {self.model or ''}".strip(), "CLIENT", event.ts - latency, attributes
            )
            self._set_error(span, event.cause or "_OTHER", event.message)
            span.end(end_time=_ns(event.ts))
        if event.fatal:
            self._set_error(self.run_span, event.cause or event.kind, event.message)

    def _finish(self, event: FinalAnswer) -> None:
        span = self.run_span
        span.set_attribute("playscout.status", event.status)
        span.set_attribute("playscout.turns", event.turns)
        span.set_attribute("gen_ai.usage.input_tokens", self.tokens[0])
        span.set_attribute("gen_ai.usage.output_tokens", self.tokens[1])
        if self.capture_content and event.answer is not None:
            span.set_attribute("output.value", event.answer)
        span.end(end_time=_ns(event.ts))
        self.run_span = None

    @staticmethod
    def _set_error(span: Any, error_type: str, message: str) -> None:
        from opentelemetry.trace import Status, StatusCode

        span.set_attribute("error.type", error_type)
        span.set_status(Status(StatusCode.ERROR, message[:500]))


_TRACERS: dict[tuple[str, str], Any] = {}


def otlp_tracer(settings: TelemetrySettings) -> Any:
    """The process's OTLP-exporting tracer for `settings.otlp_endpoint` (HTTP/protobuf, batched),
    or None when tracing is off. Built once per endpoint and service name; the provider is not
    made global, so embedding applications keep their own."""
    if not settings.otlp_endpoint:
        return None
    key = (settings.otlp_endpoint, settings.service_name)
    if key not in _TRACERS:
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
            from opentelemetry.sdk.resources import Resource
            from opentelemetry.sdk.trace import TracerProvider
            from opentelemetry.sdk.trace.export import BatchSpanProcessor
        except ImportError as e:
            raise TelemetryUnavailable(
                "telemetry.otlp_endpoint is set but the OpenTelemetry SDK is not installed "
                f"({e.name}): pip install 'playscout[telemetry]'"
            ) from None
        provider = TracerProvider(resource=Resource.create({"service.name": settings.service_name}))
        provider.add_span_processor(
            BatchSpanProcessor(OTLPSpanExporter(endpoint=settings.otlp_endpoint))
        )
        _TRACERS[key] = provider.get_tracer(INSTRUMENTATION)
    return _TRACERS[key]
