"""ChatClient over any OpenAI-compatible `/chat/completions` server (vLLM, hosted APIs).

Why not the OpenAI SDK: the reference made a new SDK client per tool call and retried errors
that can never succeed. Here connections are pooled per loop (clients/pool.py), retries are
bounded and only for failures that can heal (clients/retry.py), and every error is one line
naming the URL and the cause.
"""

from __future__ import annotations

import asyncio
import copy
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import httpx
import orjson

from playscout.clients.chat import (
    ChatMessage,
    ChatParams,
    ChatResponse,
    ModelBadResponse,
    ModelError,
    ModelRejected,
    ModelTimeout,
    ModelUnavailable,
    TextPart,
)
from playscout.clients.pool import shared_client
from playscout.clients.retry import backoff_s, is_retryable_status, one_line, parse_retry_after
from playscout.clients.wire import (
    WireError,
    body_limit,
    bound_reply,
    parse_response,
    partial_response,
    reply_cap,
    request_body,
)
from playscout.config import ModelEndpoint

Sleep = Callable[[float], Awaitable[None]]


def chat_url(base_url: str) -> str:
    """`base_url` is the API root as for the OpenAI SDK (…/v1); a full URL is kept."""
    url = base_url.strip().rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise ValueError(f"chat client: base_url must start with http(s)://, got {base_url!r}")
    return url if url.endswith("/chat/completions") else url + "/chat/completions"


ERROR_BODY_BYTES = 64 * 1024  # an error body is read this far: its message is at the start


def _error_detail(raw: bytes) -> str:
    """Prefer the OpenAI-style {"error": {"message": ...}} text over the raw body."""
    text = raw.decode("utf-8", "replace")
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return one_line(text) or "(empty body)"
    err = body.get("error") if isinstance(body, dict) else None
    if isinstance(err, dict) and err.get("message"):
        return one_line(str(err["message"]))
    if isinstance(err, str):
        return one_line(err)
    if isinstance(body, dict) and isinstance(body.get("detail"), str):
        return one_line(body["detail"])
    return one_line(text)


async def _read_at_most(response: httpx.Response, limit: int) -> tuple[bytes, int]:
    """(the body's first `limit` bytes or all of it, bytes received): the rest is never read
    (the connection is dropped instead), so memory stays bounded whatever the server sends."""
    chunks, size = [], 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            break
    return b"".join(chunks)[: limit + 1], size


class ModelBusy(ModelUnavailable):
    """408, 429 or 5xx: retried, waiting at least the server's Retry-After when it sends one."""

    def __init__(
        self, message: str, retry_after_s: float | None = None, *, status: int | None = None
    ) -> None:
        super().__init__(message, status=status)
        self.retry_after_s = retry_after_s


class OpenAIChatClient:
    """One endpoint + model. Cheap to create; the HTTP pool is shared per (URL, key, loop)."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout_s: float = 120.0,
        max_retries: int = 4,
        backoff_base_s: float = 0.5,
        backoff_max_s: float = 8.0,
        default_params: ChatParams | None = None,
        sleep: Sleep = asyncio.sleep,
        max_reply_bytes: int = 1_000_000,
    ) -> None:
        if timeout_s <= 0 or max_retries < 0:
            raise ValueError("chat client: need timeout_s > 0 and max_retries >= 0")
        self.base_url = base_url
        self.url = chat_url(base_url)
        self.model = model
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self.default_params = default_params or ChatParams(timeout_s=timeout_s)
        self._api_key = api_key
        self._sleep = sleep
        self.max_reply_bytes = max_reply_bytes  # with max_tokens, bounds each reply (wire.py)

    @classmethod
    def from_endpoint(cls, endpoint: ModelEndpoint, **overrides: Any) -> OpenAIChatClient:
        """Key read from the env var the endpoint names (never stored in config files)."""
        if not endpoint.configured:
            raise ValueError("chat client: endpoint has no base_url or model configured")
        kwargs: dict[str, Any] = {
            "api_key": os.environ.get(endpoint.api_key_env) or None,
            "timeout_s": endpoint.timeout_s,
            "max_retries": endpoint.max_retries,
            "default_params": ChatParams.from_endpoint(endpoint),
            "max_reply_bytes": endpoint.max_reply_bytes,
        }
        kwargs.update(overrides)
        return cls(endpoint.base_url, endpoint.model, **kwargs)

    def __repr__(self) -> str:
        return f"OpenAIChatClient({self.url!r}, model={self.model!r})"

    async def chat(
        self,
        messages: Sequence[ChatMessage],
        tools: list[dict[str, Any]] | None = None,
        params: ChatParams | None = None,
    ) -> ChatResponse:
        params = params or self.default_params
        # ChatParams always carries a timeout; only one set explicitly overrides the client's.
        timeout_s = params.timeout_s if "timeout_s" in params.model_fields_set else self.timeout_s
        body = request_body(self.model, messages, tools, params)
        attempts = self.max_retries + 1
        last: ModelError | None = None
        cap = reply_cap(params.max_tokens, self.max_reply_bytes)
        for attempt in range(1, attempts + 1):
            retry_after: float | None = None
            try:
                return await self._once(body, timeout_s, cap)
            except ModelError as e:
                if not e.retryable:
                    raise
                last = e
                retry_after = e.retry_after_s if isinstance(e, ModelBusy) else None
            if attempt < attempts:
                await self._sleep(
                    backoff_s(attempt, self.backoff_base_s, self.backoff_max_s, retry_after)
                )
        assert last is not None
        gave_up = copy.copy(last)  # keeps the type, `status` and `retry_after_s`
        gave_up.args = (f"{last} (gave up after {attempts} attempts)",)
        raise gave_up

    async def _once(self, body: dict[str, Any], timeout_s: float, cap: int) -> ChatResponse:
        """One request; the reply's texts bounded by `cap` bytes (wire.bound_reply)."""
        client = shared_client(self.base_url, self._api_key)
        timeout = httpx.Timeout(timeout_s, connect=min(timeout_s, 10.0))
        where = f"chat request to {self.url}"
        t0 = time.perf_counter()
        try:
            async with client.stream("POST", self.url, json=body, timeout=timeout) as response:
                ok = 200 <= response.status_code < 300
                limit = body_limit(cap) if ok else ERROR_BODY_BYTES
                raw, received = await _read_at_most(response, limit)
        except httpx.TimeoutException as e:
            raise ModelTimeout(
                f"{where} timed out after {timeout_s:g}s ({type(e).__name__})"
            ) from e
        except httpx.TransportError as e:
            cause = one_line(str(e)) or "no detail"
            raise ModelUnavailable(
                f"{where} failed: connection error ({type(e).__name__}: {cause})"
            ) from e
        except httpx.HTTPError as e:
            raise ModelUnavailable(f"{where} failed: {type(e).__name__}: {one_line(str(e))}") from e
        latency = time.perf_counter() - t0
        status = response.status_code
        if ok and received > limit:  # it ignored max_tokens: keep the start, cut, say so
            return partial_response(raw, cap, latency, self.model, received)
        if ok:
            try:
                return bound_reply(parse_response(raw, latency, self.model), cap)
            except WireError as e:
                raise ModelBadResponse(f"{where}: malformed reply: {e}") from None
        detail = f"{where} failed: HTTP {status}: {_error_detail(raw)}"
        if not is_retryable_status(status):
            raise ModelRejected(detail, status=status)
        retry_after = parse_retry_after(response.headers.get("retry-after"))
        raise ModelBusy(detail, retry_after, status=status)

    async def supports_tools(self) -> bool:
        """Does the server accept native tool calling? vLLM without --enable-auto-tool-choice
        answers 400 to a request with `tools`; then the agent uses the text protocol."""
        probe = {
            "type": "function",
            "function": {
                "name": "ping",
                "description": "Reply ok.",
                "parameters": {"type": "object", "properties": {}},
            },
        }
        try:
            await self.chat(
                [ChatMessage(role="user", content=[TextPart(text="Say ok.")])],
                tools=[probe],
                params=ChatParams(max_tokens=8, timeout_s=min(self.timeout_s, 30.0)),
            )
        except ModelRejected:
            return False
        return True
