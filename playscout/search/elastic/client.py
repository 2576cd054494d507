"""One configured client per backend: timeouts, retries with backoff on 429/5xx and timeouts."""

from __future__ import annotations

import inspect
from typing import Any

from elasticsearch import Elasticsearch

RETRY_STATUS = (429, 502, 503, 504)


def make_client(
    url: str,
    request_timeout: float = 30.0,
    max_retries: int = 3,
    **options: Any,
) -> Elasticsearch:
    """`options` go to Elasticsearch() unchanged (api_key, ca_certs, transport_class, ...)."""
    kwargs: dict[str, Any] = {
        "request_timeout": request_timeout,
        "max_retries": max_retries,
        "retry_on_timeout": True,
        "retry_on_status": RETRY_STATUS,
    }
    params = inspect.signature(Elasticsearch).parameters
    if "retry_backoff_base" in params:  # elastic-transport >= 8.13: jittered backoff
        kwargs |= {"retry_backoff_base": 0.5, "retry_backoff_cap": 30.0}
    try:
        from elasticsearch.serializer import OrjsonSerializer

        kwargs["serializer"] = OrjsonSerializer()
    except ImportError:  # orjson missing: the stdlib serializer is slower, not wrong
        pass
    kwargs.update(options)
    return Elasticsearch(url, **kwargs)
