"""Model clients (chat, VLM): the layer tools and the agent call models through. Any
OpenAI-compatible server (vLLM, a hosted API) behind one `ChatClient` protocol."""

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
