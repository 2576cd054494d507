"""A record of one model call made on a tool's behalf (the VLM inside video_qa, a QA model).

Tools keep it on their typed result and the trajectory keeps it on the observation, so a trace
can show the call as its own span and a reader can see which model answered, how long it took
and what it cost, without the prompt or the frames."""

from __future__ import annotations

from urllib.parse import urlsplit

from pydantic import BaseModel


class CallRecord(BaseModel):
    model: str
    subject: str | None = None  # the clip or document id the call was about
    started: float  # epoch seconds, when the request was sent
    latency_s: float
    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str | None = None
    cut_from_bytes: int | None = None  # the reply was over its byte cap and cut (clients/wire.py)
    error: str | None = None
    server: str | None = None  # scheme://host:port of the endpoint; no path, no credentials
    images: int = 0  # frames sent with the request


def endpoint_origin(base_url: str | None) -> str | None:
    """`scheme://host:port` of an endpoint URL (credentials and path dropped), or None."""
    if not base_url:
        return None
    parts = urlsplit(base_url)
    if not parts.hostname:
        return None
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{parts.hostname}{port}"
