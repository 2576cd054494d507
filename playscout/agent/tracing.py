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

Contents (the question, the answer, each tool call's arguments and result, the answers of the
models a tool calls) are put on spans only when `capture_content` is on, each cut to
`content_chars`: under both conventions' names (`gen_ai.tool.call.arguments` / `.result` and
OpenInference's `input.value` / `output.value`). Ids are always there: the run id (the one id
of an ask: its trajectory file, its `/v1/trajectories/{id}` and its viewer page), the tool call
id, `session.id` when the run continues a session. Every model call a tool makes (the VLM
inside `video_qa`, the document and caption QA models) is its own `chat` span under the tool's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urlsplit

from playscout.agent.trajectory import (
    ErrorEvent,
    Event,
    FinalAnswer,
    ModelCall,
    Observation,
    RunStart,
    ToolCallEvent,
)
from playscout.clients.calls import CallRecord
from playscout.config import TelemetrySettings
from playscout.errors import PlayscoutError

AGENT_NAME = "playscout-agent"
INSTRUMENTATION = "playscout.agent"
PROVIDER = "openai"  # the wire protocol: every agent model is an OpenAI-compatible server


VIEWER_URL = "playscout.viewer.url"  # the span's link to its page in the run browser
PROJECT_NAME = "openinference.project.name"  # the resource attribute Phoenix files traces by
SESSION_ID = "session.id"  # OpenInference's (and Langfuse's) session key
DEFAULT_CONTENT_CHARS = 4096


class TelemetryUnavailable(PlayscoutError, RuntimeError):
    """Tracing is configured but its packages are not installed: names the extra."""


def _ns(seconds: float) -> int:
    return int(seconds * 1e9)


def bounded(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, saying how many were cut (a span attribute must not
    carry a whole document, and a reader must see that it was cut)."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}…[{len(text) - limit} more characters]"


def content_attributes(
    cut: int,
    *,
    input: str | None = None,
    output: str | None = None,
    input_mime: str = "text/plain",
    arguments: str | None = None,
    result: str | None = None,
) -> dict[str, str]:
    """Captured content, each cut to `cut` characters: OpenInference's input/output values
    (with their MIME types) and the GenAI tool call's arguments/result, for what is given."""
    attributes: dict[str, str] = {}
    if input is not None:
        attributes["input.value"] = bounded(input, cut)
        attributes["input.mime_type"] = input_mime
    if output is not None:
        attributes["output.value"] = bounded(output, cut)
        attributes["output.mime_type"] = "text/plain"
    if arguments is not None:
        attributes["gen_ai.tool.call.arguments"] = bounded(arguments, cut)
    if result is not None:
        attributes["gen_ai.tool.call.result"] = bounded(result, cut)
    return attributes


def as_json(value: Any) -> str:
    """Tool arguments as the JSON string both conventions ask for (a text-protocol call whose
    arguments did not parse is kept as the model wrote it)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str, sort_keys=True)


def _arguments(value: dict[str, Any] | str) -> dict[str, Any]:
    """A call's arguments as a dict (native calls keep the model's JSON text; {} if it is not
    a JSON object)."""
    if isinstance(value, dict):
        return value
    try:
        parsed = json.loads(value)
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def viewer_url(public_url: str | None, *route: str) -> str:
    """The run browser's page for `route` (`asks`, ID or `runs`, RUN, `q`, QID): relative
    (`/viewer#/asks/ID`) unless the server's public base URL is known."""
    path = "/viewer#/" + "/".join(quote(part, safe="") for part in route)
    return public_url.rstrip("/") + path if public_url else path


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
    `run_attributes` are added to the run span (its viewer link, an eval question's ids);
    `capture_content` adds the question, the answer, tool arguments and results and the QA
    models' answers, each cut to `content_chars`; off by default because they may be private."""

    def __init__(
        self,
        tracer: Any,
        request: Mapping[str, Any] | None = None,
        *,
        capture_content: bool = False,
        content_chars: int = DEFAULT_CONTENT_CHARS,
        run_attributes: Mapping[str, Any] | None = None,
    ) -> None:
        self.tracer = tracer
        self.request = dict(request or {})
        self.capture_content = capture_content
        self.content_chars = content_chars
        self.run_attributes = dict(run_attributes or {})
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

    def _content(self, attributes: dict[str, Any], **content: Any) -> None:
        """Captured content (`content_attributes`), nothing unless capture is on."""
        if self.capture_content:
            attributes.update(content_attributes(self.content_chars, **content))

    def _child(
        self,
        name: str,
        kind: str,
        start_s: float,
        attributes: dict[str, Any],
        parent: Any = None,
    ) -> Any:
        from opentelemetry import trace

        context = trace.set_span_in_context(parent if parent is not None else self.run_span)
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
            attributes[SESSION_ID] = event.session_id
        attributes.update(self.run_attributes)
        self._content(attributes, input=event.question)
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
        self._content(attributes, output=event.content or None)  # a bare tool call: none
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
        arguments = as_json(event.arguments)
        self._content(
            attributes, arguments=arguments, input=arguments, input_mime="application/json"
        )
        span = self._child(f"execute_tool {event.name}", "INTERNAL", event.ts, attributes)
        self.tools[event.turn] = (span, event)

    def _observation(self, event: Observation) -> None:
        found = self.tools.pop(event.turn, None)
        if found is None:
            return
        span, call = found
        span.set_attribute("playscout.observation_tokens", event.tokens)
        result: dict[str, Any] = {}
        self._content(result, result=event.text, output=event.text)
        span.set_attributes(result)
        answers = {str(a.get("id")): a for a in event.data.get("answers", [])}
        query = _arguments(call.arguments).get("query")
        for record in event.model_calls:
            self._tool_model_call(span, call, record, answers.get(record.subject or ""), query)
        if event.error:
            self._set_error(span, "tool_error", event.error)
        span.end(end_time=_ns(event.ts))

    def _tool_model_call(
        self,
        parent: Any,
        call: ToolCallEvent,
        record: CallRecord,
        answer: Mapping[str, Any] | None,
        query: Any,
    ) -> None:
        """A model call a tool made (the VLM of video_qa, a QA model): a `chat` span under the
        tool's span, at the time it ran."""
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": PROVIDER,
            "gen_ai.request.model": record.model,
            "llm.model_name": record.model,
            "openinference.span.kind": "LLM",
            "gen_ai.usage.input_tokens": record.prompt_tokens,
            "gen_ai.usage.output_tokens": record.completion_tokens,
            "llm.token_count.prompt": record.prompt_tokens,
            "llm.token_count.completion": record.completion_tokens,
            "llm.token_count.total": record.prompt_tokens + record.completion_tokens,
            "playscout.tool": call.name,
            "playscout.turn": call.turn,
            **server_attributes(record.server),
        }
        if call.call_id:
            attributes["gen_ai.tool.call.id"] = call.call_id
        if record.subject:
            attributes["playscout.subject_id"] = record.subject
        if record.images:
            attributes["playscout.images"] = record.images
        if record.finish_reason:
            attributes["gen_ai.response.finish_reasons"] = [record.finish_reason]
        said = answer.get("answer") if answer else None
        self._content(
            attributes,
            input=str(query) if query is not None else None,
            output=str(said) if said is not None else None,
        )
        span = self._child(
            f"chat {record.model}", "CLIENT", record.started, attributes, parent=parent
        )
        if record.error:
            self._set_error(span, "_OTHER", record.error)
        span.end(end_time=_ns(record.started + record.latency_s))

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
        output: dict[str, Any] = {}
        self._content(output, output=event.answer)
        span.set_attributes(output)
        span.end(end_time=_ns(event.ts))
        self.run_span = None

    @staticmethod
    def _set_error(span: Any, error_type: str, message: str) -> None:
        from opentelemetry.trace import Status, StatusCode

        span.set_attribute("error.type", error_type)
        span.set_status(Status(StatusCode.ERROR, message[:500]))


_TRACERS: dict[tuple[str, str, str], Any] = {}


def resource_attributes(settings: TelemetrySettings) -> dict[str, str]:
    """What every exported span's resource says: the service, and the project Phoenix files
    the traces under (else they land in its `default` project)."""
    return {"service.name": settings.service_name, PROJECT_NAME: settings.project_name}


def resource(settings: TelemetrySettings) -> Any:
    from opentelemetry.sdk.resources import Resource

    return Resource.create(resource_attributes(settings))


def otlp_tracer(settings: TelemetrySettings) -> Any:
    """The process's OTLP-exporting tracer for `settings.otlp_endpoint` (HTTP/protobuf, batched),
    or None when tracing is off. Built once per endpoint and service name; the provider is not
    made global, so embedding applications keep their own."""
    if not settings.otlp_endpoint:
        return None
    key = (settings.otlp_endpoint, settings.service_name, settings.project_name)
    if key not in _TRACERS:
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
            from opentelemetry.sdk.trace import TracerProvider
            from opentelemetry.sdk.trace.export import BatchSpanProcessor
        except ImportError as e:
            raise TelemetryUnavailable(
                "telemetry.otlp_endpoint is set but the OpenTelemetry SDK is not installed "
                f"({e.name}): pip install 'playscout[telemetry]'"
            ) from None
        provider = TracerProvider(resource=resource(settings))
        provider.add_span_processor(
            BatchSpanProcessor(OTLPSpanExporter(endpoint=settings.otlp_endpoint))
        )
        _TRACERS[key] = provider.get_tracer(INSTRUMENTATION)
    return _TRACERS[key]
