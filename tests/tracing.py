"""An OpenTelemetry tracer whose spans land in memory, for the tests that read spans back
(agent, eval, serving). Callers skip themselves where the SDK is not installed."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def memory_tracer(resource: Any = None) -> Iterator[tuple[Any, Any]]:
    """(tracer, exporter): `exporter.get_finished_spans()` holds every span ended so far;
    `resource` as the exported spans carry it (None: the SDK's default)."""
    from opentelemetry.sdk import trace as sdk_trace
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = sdk_trace.TracerProvider(**({} if resource is None else {"resource": resource}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    try:
        yield provider.get_tracer("test"), exporter
    finally:
        provider.shutdown()
