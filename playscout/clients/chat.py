"""The model-client interface every layer shares (tools for QA, the agent for planning).

It sits below tools/ and agent/ so that neither imports serving/. One OpenAI-compatible
implementation (clients/openai_chat.py) covers vLLM and hosted APIs; test doubles implement
the same protocol and say so in their names.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from playscout.config import ModelEndpoint
from playscout.errors import PlayscoutError


class ImagePart(BaseModel):
    """An image as a data URI (base64 JPEG) or URL, sent as an OpenAI `image_url` part."""

    type: Literal["image_url"] = "image_url"
    url: str


class TextPart(BaseModel):
    type: Literal["text"] = "text"
    text: str


class VideoPart(BaseModel):
    """A video as a data URI (base64 MP4) or URL, sent as a `video_url` part: the native video
    input of servers that take one (vLLM's Qwen-VL and Molmo), not part of OpenAI's API."""

    type: Literal["video_url"] = "video_url"
    url: str


Part = TextPart | ImagePart | VideoPart


class ToolCall(BaseModel):
    id: str
    name: str
    arguments: str  # raw JSON text as the model wrote it; parsed by the tool registry


class ChatMessage(BaseModel):
    role: Literal["system", "user", "assistant", "tool"]
    content: str | list[Part] = ""
    tool_calls: list[ToolCall] | None = None
    tool_call_id: str | None = None
    name: str | None = None


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0


ToolChoice = Literal["auto", "required", "none"] | dict[str, Any]


class ChatParams(BaseModel):
    """Generation settings, applied as given (the reference silently ignored them)."""

    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = Field(1024, ge=1)
    stop: list[str] | None = None
    timeout_s: float = Field(120.0, gt=0)
    # Reasoning models (GPT-5): sent as reasoning_effort, with max_completion_tokens in place of
    # max_tokens, as the reference's GPT-5 chat client does.
    reasoning_effort: str | None = None
    # With tools: "required" or {"type": "function", "function": {"name": ...}} makes vLLM
    # constrain the reply to a call (structured outputs); None = not sent (the server's auto).
    tool_choice: ToolChoice | None = None
    extra_body: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def from_endpoint(cls, endpoint: ModelEndpoint, **changes: Any) -> ChatParams:
        """The endpoint's generation settings (temperature, top_p, max_tokens, reasoning
        effort, timeout), with `changes` on top."""
        values: dict[str, Any] = {
            "temperature": endpoint.temperature,
            "top_p": endpoint.top_p,
            "max_tokens": endpoint.max_tokens,
            "reasoning_effort": endpoint.reasoning_effort,
            "timeout_s": endpoint.timeout_s,
        }
        return cls(**(values | changes))


class ChatResponse(BaseModel):
    content: str
    reasoning: str | None = None  # separate reasoning channel when the server provides one
    tool_calls: list[ToolCall] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    latency_s: float = 0.0
    model: str = ""
    finish_reason: str | None = None
    # The reply was over its byte cap (clients/wire.bound_reply): its texts were cut to the cap
    # (finish_reason "length") and this is how many bytes they held (at least, when the body
    # itself was cut off while it was read).
    cut_from_bytes: int | None = None


class ModelError(PlayscoutError, RuntimeError):
    """A model call that failed. `retryable` says whether trying again can help; messages are
    one line naming the server and the cause. `status` is the HTTP status the model server
    answered, when it answered at all (the API picks 502/503/504 from it)."""

    retryable: bool = False
    status: int | None = None

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class ModelUnavailable(ModelError):
    retryable = True


class ModelTimeout(ModelError):
    retryable = True


class ModelRejected(ModelError):
    """4xx other than 408/429: bad request, context overflow, unknown model. Never retried."""


class ModelBadResponse(ModelError):
    """The server answered 2xx with something that is not a chat completion."""

    retryable = True


@runtime_checkable
class ChatClient(Protocol):
    model: str

    async def chat(
        self,
        messages: Sequence[ChatMessage],
        tools: list[dict[str, Any]] | None = None,
        params: ChatParams | None = None,
    ) -> ChatResponse: ...
