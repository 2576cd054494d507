"""`GET {base_url}/models`: the models an OpenAI-compatible server serves (vLLM, hosted APIs).
Preflight and `/readyz` ask it before any work starts, so a server that is down, a key it
refuses or a model name it does not serve is one line at once, not a run of failed questions
after minutes of retries."""

from __future__ import annotations

import os

import httpx

from playscout.clients.chat import ModelBadResponse, ModelRejected, ModelTimeout, ModelUnavailable
from playscout.clients.openai_chat import chat_url
from playscout.clients.retry import one_line
from playscout.config import ModelEndpoint, redact_urls


class NoModelList(ModelRejected):
    """The server answers but has no `/models` route (404/405): what it serves is unknown."""


def models_url(base_url: str) -> str:
    """The `/models` URL beside the chat URL the clients post to (…/v1 -> …/v1/models)."""
    return chat_url(base_url).removesuffix("/chat/completions") + "/models"


async def served_models(endpoint: ModelEndpoint, timeout_s: float) -> list[str]:
    """The ids the endpoint's server lists. Raises ModelUnavailable / ModelTimeout (not
    reachable), ModelRejected (401, 403 and other refusals), NoModelList (no such route),
    ModelBadResponse (not an OpenAI model list); every message names the URL."""
    try:
        url = models_url(endpoint.base_url)
    except ValueError as e:  # not an http(s) URL
        raise ModelRejected(str(e)) from None
    shown = redact_urls(url)  # messages never carry a user:password@ part
    key = os.environ.get(endpoint.api_key_env) or None
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    try:
        async with httpx.AsyncClient(timeout=timeout_s, headers=headers) as client:
            response = await client.get(url)
    except httpx.TimeoutException:
        raise ModelTimeout(f"{shown} did not answer within {timeout_s:g} s") from None
    except httpx.HTTPError as e:
        cause = one_line(str(e)) or "no detail"
        raise ModelUnavailable(f"{shown} is not reachable ({type(e).__name__}: {cause})") from None
    status = response.status_code
    if status in (404, 405):
        raise NoModelList(f"{shown} answered HTTP {status}: the server lists no models")
    if status in (401, 403):
        raise ModelRejected(
            f"{shown} refused the request (HTTP {status}): check the key in ${endpoint.api_key_env}"
        )
    if status != 200:
        raise ModelUnavailable(f"{shown} answered HTTP {status}: {one_line(response.text)}")
    try:
        return [str(m["id"]) for m in response.json()["data"]]
    except (ValueError, KeyError, TypeError):
        raise ModelBadResponse(f"{shown} did not answer with an OpenAI model list") from None
