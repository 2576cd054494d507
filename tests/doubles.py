"""The one in-process test double for a chat model (the ChatClient protocol), used wherever a
test needs a model but no served model can answer cheaply and deterministically: the agent's
graph, the QA tools, the eval judges and the response cache.

It stands in for the model only; everything it is handed to is real. It never stands in for
the HTTP path, which is tested with OpenAIChatClient against FakeOpenAIServer
(tests/clients/fake_openai_server.py).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from playscout.clients.chat import (
    ChatMessage,
    ChatParams,
    ChatResponse,
    ImagePart,
    TextPart,
    ToolCall,
    Usage,
)

Answer: TypeAlias = str | ChatResponse | BaseException
# A callable reply is given the request's messages and the call's start number (0, 1, ...).
Reply: TypeAlias = Answer | Callable[[list[ChatMessage], int], Answer]


def message_text(messages: Sequence[ChatMessage]) -> str:
    """The text of the last message (its text parts, for a multimodal one)."""
    content = messages[-1].content
    if isinstance(content, str):
        return content
    return "".join(p.text for p in content if isinstance(p, TextPart))


def image_count(messages: Sequence[ChatMessage]) -> int:
    content = messages[-1].content
    return 0 if isinstance(content, str) else sum(isinstance(p, ImagePart) for p in content)


def json_answer(messages: Sequence[ChatMessage], n: int) -> str:
    """A QA-tool answer that says how many images the last message carried."""
    images = image_count(messages)
    return (
        "<answer>"
        + json.dumps({"answer": f"saw {images} images", "confidence": 0.75, "evidence": "scripted"})
        + "</answer>"
    )


def text_call(name: str, **arguments: Any) -> str:
    """A tool call in the text protocol."""
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


def native_call(*calls: tuple[str, dict[str, Any]], content: str = "") -> ChatResponse:
    """A reply with native (OpenAI-style) tool calls."""
    return ChatResponse(
        content=content,
        tool_calls=[
            ToolCall(id=f"call_{i}", name=name, arguments=json.dumps(args))
            for i, (name, args) in enumerate(calls)
        ],
    )


@dataclass
class Request:
    """One recorded call."""

    messages: list[ChatMessage]
    tools: list[dict[str, Any]] | None
    params: ChatParams | None

    @property
    def prompt(self) -> str:
        return message_text(self.messages)


class ScriptedChatModel:
    """TEST DOUBLE of a ChatClient. Answers call n with `replies[n]` (the last one again once
    the script runs out): a string becomes a ChatResponse with fixed usage, a ChatResponse is
    returned as is, an exception is raised (an injected failure), a callable is called with the
    messages and n and its result is treated the same way. The default script is `json_answer`.

    Records every request (`requests`), how many calls were in flight at most
    (`max_in_flight`) and the order calls finished in (`finished`, by start number);
    `delay_s` (seconds, or a function of the start number) makes calls take time."""

    def __init__(
        self,
        replies: Sequence[Reply] = (json_answer,),
        *,
        model: str = "scripted",
        supports_native_tools: bool | None = False,
        delay_s: float | Callable[[int], float] = 0.0,
        finish_reason: str = "stop",
    ) -> None:
        if not replies:
            raise ValueError("a script needs at least one reply")
        self.replies = list(replies)
        self.model = model
        self.supports_native_tools = supports_native_tools
        self.delay_s = delay_s
        self.finish_reason = finish_reason
        self.requests: list[Request] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.finished: list[int] = []

    async def chat(
        self,
        messages: Sequence[ChatMessage],
        tools: list[dict[str, Any]] | None = None,
        params: ChatParams | None = None,
    ) -> ChatResponse:
        n = len(self.requests)
        self.requests.append(Request(list(messages), tools, params))
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            delay = self.delay_s(n) if callable(self.delay_s) else self.delay_s
            await asyncio.sleep(delay)  # also a yield point, as a real client's await is
            reply = self.replies[min(n, len(self.replies) - 1)]
            answer = reply(list(messages), n) if callable(reply) else reply
            self.finished.append(n)
            if isinstance(answer, BaseException):
                raise answer
            if isinstance(answer, ChatResponse):
                return answer
            return ChatResponse(
                content=answer,
                usage=Usage(prompt_tokens=100, completion_tokens=20),
                latency_s=delay,
                model=self.model,
                finish_reason=self.finish_reason,
            )
        finally:
            self.in_flight -= 1
