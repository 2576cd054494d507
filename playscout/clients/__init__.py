"""Model clients (chat, VLM): the layer tools and the agent call models through. Any
OpenAI-compatible server (vLLM, a hosted API) behind one `ChatClient` protocol.

`OpenAIChatClient` is imported on first use: it needs httpx, which a run without a model
(a search, the workflow policy) never loads (issue 29)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from playscout.clients.chat import (
    ChatClient,
    ChatMessage,
    ChatParams,
    ChatResponse,
    ImagePart,
    ModelBadResponse,
    ModelError,
    ModelRejected,
    ModelTimeout,
    ModelUnavailable,
    TextPart,
    ToolCall,
    Usage,
)

if TYPE_CHECKING:
    from playscout.clients.openai_chat import OpenAIChatClient

__all__ = [
    "ChatClient",
    "ChatMessage",
    "ChatParams",
    "ChatResponse",
    "ImagePart",
    "ModelBadResponse",
    "ModelError",
    "ModelRejected",
    "ModelTimeout",
    "ModelUnavailable",
    "OpenAIChatClient",
    "TextPart",
    "ToolCall",
    "Usage",
]


def __getattr__(name: str) -> Any:
    if name != "OpenAIChatClient":
        raise AttributeError(f"module 'playscout.clients' has no attribute {name!r}")
    from playscout.clients.openai_chat import OpenAIChatClient

    globals()[name] = OpenAIChatClient
    return OpenAIChatClient
