"""Shared fixtures: a real embedded index over a small synthetic corpus, and a scripted model.

The index, the search tools and the graph are real; only the LLM is a test double, because no
model server runs in unit tests (the vLLM end-to-end test is separate).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from playscout.clients.chat import ChatMessage, ChatParams, ChatResponse, ToolCall, Usage
from playscout.corpus import Corpus
from playscout.tools import SEARCH_TOOLS, ToolContext

Reply = str | ChatResponse | BaseException | Callable[[list[ChatMessage]], Any]


@dataclass
class Request:
    messages: list[ChatMessage]
    tools: list[dict[str, Any]] | None
    params: ChatParams | None


@dataclass
class ScriptedChatModel:
    """TEST DOUBLE of a ChatClient: returns scripted replies with zero latency and records every
    request. It stands in for the model server only; the graph and tools under test are real.
    When the script runs out it repeats the last reply."""

    replies: Sequence[Reply]
    model: str = "scripted"
    supports_native_tools: bool | None = False
    requests: list[Request] = field(default_factory=list)

    async def chat(
        self,
        messages: Sequence[ChatMessage],
        tools: list[dict[str, Any]] | None = None,
        params: ChatParams | None = None,
    ) -> ChatResponse:
        self.requests.append(Request(list(messages), tools, params))
        reply = self.replies[min(len(self.requests) - 1, len(self.replies) - 1)]
        if callable(reply) and not isinstance(reply, BaseException):
            reply = reply(list(messages))
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, ChatResponse):
            return reply
        return ChatResponse(content=str(reply), usage=Usage(prompt_tokens=10, completion_tokens=5))


def text_call(name: str, **arguments: Any) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


def native_call(*calls: tuple[str, dict[str, Any]], content: str = "") -> ChatResponse:
    return ChatResponse(
        content=content,
        tool_calls=[
            ToolCall(id=f"call_{i}", name=name, arguments=json.dumps(args))
            for i, (name, args) in enumerate(calls)
        ],
    )


@dataclass
class SynthIndex:
    corpus_dir: Path
    index_dir: Path
    backend: Any

    def ctx(self, mode: str = "oracle") -> ToolContext:
        return ToolContext(backend=self.backend, sport="basketball", mode=mode)  # type: ignore[arg-type]

    def questions(self) -> list[Any]:
        return [q for q in Corpus(self.corpus_dir).questions("basketball") if q.gold]


@pytest.fixture(scope="session")
def synth(tmp_path_factory: pytest.TempPathFactory) -> SynthIndex:
    from playscout.indexer.build import build_from_corpus
    from playscout.search import open_backend
    from playscout.synthetic import generate_corpus, generate_questions

    root = tmp_path_factory.mktemp("agent-synth")
    corpus, index = root / "corpus", root / "index"
    generate_corpus(corpus, games=3, seed=1)
    generate_questions(corpus, per_sport=3, seed=1)
    build_from_corpus(corpus, index, sports=["basketball"], caption_embedder="minilm")
    return SynthIndex(corpus, index, open_backend(index))


@pytest.fixture
def search_tools() -> tuple[Any, ...]:
    return SEARCH_TOOLS
