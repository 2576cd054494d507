"""The one place a model client is made from a configured endpoint: the agent's model, the
judge and every tool's model role (tools/registry.models_from_settings) come from here.
Clients are cheap and pool their connections per loop (clients/pool.py); equal endpoints with
the same key share one client object."""

from __future__ import annotations

import functools
import os

from playscout.clients.chat import ChatClient
from playscout.config import ModelEndpoint


def chat_client(endpoint: ModelEndpoint) -> ChatClient:
    """The client for `endpoint` (which must be configured). The key is read from the
    environment now, so a changed key gets a new client."""
    return _client(endpoint.model_dump_json(), os.environ.get(endpoint.api_key_env) or "")


@functools.lru_cache(maxsize=32)
def _client(endpoint_json: str, api_key: str) -> ChatClient:
    from playscout.clients.openai_chat import OpenAIChatClient

    endpoint = ModelEndpoint.model_validate_json(endpoint_json)
    return OpenAIChatClient.from_endpoint(endpoint, api_key=api_key or None)
