"""Test doubles implementing ChatClient, for checks no served model can make cheaply here:
what exactly a tool sent (prompt, image count, parameters), how many calls were in flight,
and in which order answers came back. They never stand in for the HTTP path, which is tested
with OpenAIChatClient against FakeOpenAIServer."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from typing import Any

from playscout.clients.chat import ChatMessage, ChatParams, ChatResponse, ImagePart, TextPart, Usage


def message_text(messages: Sequence[ChatMessage]) -> str:
    content = messages[-1].content
    if isinstance(content, str):
        return content
    return "".join(p.text for p in content if isinstance(p, TextPart))


def image_count(messages: Sequence[ChatMessage]) -> int:
    content = messages[-1].content
    return 0 if isinstance(content, str) else sum(isinstance(p, ImagePart) for p in content)


def json_answer(messages: Sequence[ChatMessage], n: int) -> str:
    images = image_count(messages)
    return (
        "<answer>"
        + json.dumps({"answer": f"saw {images} images", "confidence": 0.75, "evidence": "scripted"})
        + "</answer>"
    )


class ScriptedVLM:
    """A ChatClient that records every call and answers from a script (a function of the
    messages and the call's start number). `delay_s` may depend on the start number, to make
    later calls finish first; `finished` lists start numbers in completion order."""

    def __init__(
        self,
        model: str = "scripted-vlm",
        reply: Callable[[Sequence[ChatMessage], int], str] = json_answer,
        delay_s: Callable[[int], float] | float = 0.0,
        finish_reason: str = "stop",
    ) -> None:
        self.model = model
        self.reply = reply
        self.delay_s = delay_s
        self.finish_reason = finish_reason
        self.calls: list[tuple[list[ChatMessage], ChatParams | None, Any]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.finished: list[int] = []

    async def chat(
        self,
        messages: Sequence[ChatMessage],
        tools: list[dict[str, Any]] | None = None,
        params: ChatParams | None = None,
    ) -> ChatResponse:
        n = len(self.calls)
        self.calls.append((list(messages), params, tools))
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            delay = self.delay_s(n) if callable(self.delay_s) else self.delay_s
            await asyncio.sleep(delay)
            self.finished.append(n)
            return ChatResponse(
                content=self.reply(messages, n),
                usage=Usage(prompt_tokens=100, completion_tokens=20),
                latency_s=delay,
                model=self.model,
                finish_reason=self.finish_reason,
            )
        finally:
            self.in_flight -= 1


# Text-only uses (document and caption QA) are scripted the same way.
ScriptedChat = ScriptedVLM
