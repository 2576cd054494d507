"""Model clients (chat, VLM): the layer tools and the agent call models through. Any
OpenAI-compatible server (vLLM, a hosted API) behind one `ChatClient` protocol.

`OpenAIChatClient` is imported on first use: it needs httpx, which a run without a model
(a search, the workflow policy) never loads (issue 29)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from playscout._lazy import lazy_exports
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
    VideoPart,
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
    "VideoPart",
]


__getattr__ = lazy_exports(
    __name__, {"OpenAIChatClient": "playscout.clients.openai_chat"}, globals()
)
