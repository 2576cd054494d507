"""Agent overhead per turn: the graph, parsing, token accounting and trajectory events, with a
zero-latency scripted model (a test double) and a no-op tool, against a bare loop that does
only model call + no-op tool in the same process. Target: p50 <= 5 ms per turn.

    .venv/bin/python benchmarks/agent.py [--runs 30] [--calls 30]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import statistics
import time
from collections.abc import Sequence
from typing import Any

from playscout.agent import Agent
from playscout.agent.trajectory import ModelCall
from playscout.clients.chat import ChatMessage, ChatParams, ChatResponse
from playscout.config import AgentSettings
from playscout.tools.registry import call_tool
from playscout.tools.tool import Tool, ToolArgs, ToolContext, ToolResult

CALL = '<tool_call>{"name": "noop", "arguments": {"query": "x"}}</tool_call>'


class ScriptedZeroLatencyModel:
    """TEST DOUBLE: answers instantly with a tool call, so only agent overhead is measured."""

    model = "scripted"
    supports_native_tools = False

    async def chat(
        self,
        messages: Sequence[ChatMessage],
        tools: list[dict[str, Any]] | None = None,
        params: ChatParams | None = None,
    ) -> ChatResponse:
        return ChatResponse(content="<think>plan</think>" + CALL)


class EmptyBackend:
    """Just enough backend for the system prompt; the no-op tool never searches."""

    def search_documents(self, *a: Any, **k: Any) -> list[Any]:
        return []

    def channels(self, sport: str) -> list[str]:
        return []

    def entities(self, sport: str) -> tuple[list[str], list[str]]:
        return ["Team A", "Team B"], []


class NoopArgs(ToolArgs):
    query: str = ""


def noop(ctx: ToolContext, args: NoopArgs) -> ToolResult:
    return ToolResult(tool="noop", observation="nothing here")


TOOLS = (Tool("noop", "does nothing", NoopArgs, noop),)


async def bare_loop(calls: int, ctx: ToolContext) -> float:
    """The floor: the same model and tool with no graph, no accounting, no events."""
    model, tools = ScriptedZeroLatencyModel(), {t.name: t for t in TOOLS}
    messages = [ChatMessage(role="user", content="q")]
    start = time.perf_counter()
    for _ in range(calls):
        reply = await model.chat(messages)
        body = json.loads(reply.content.split("<tool_call>")[1].split("</tool_call>")[0])
        result = call_tool(tools, ctx, body["name"], body["arguments"])
        messages += [
            ChatMessage(role="assistant", content=reply.content),
            ChatMessage(role="user", content=result.observation),
        ]
    return (time.perf_counter() - start) / calls


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--calls", type=int, default=30)
    args = ap.parse_args()
    ctx = ToolContext(backend=EmptyBackend(), sport="basketball", mode="oracle")  # type: ignore[arg-type]
    settings = AgentSettings(max_llm_calls=args.calls, tool_protocol="text")
    agent = Agent(ctx, client=ScriptedZeroLatencyModel(), tools=TOOLS, settings=settings)
    asyncio.run(agent.run("warm up"))
    per_turn: list[float] = []
    per_run: list[float] = []
    for _ in range(args.runs):
        result = asyncio.run(agent.run("How many?"))
        stamps = [e.ts for e in result.events if isinstance(e, ModelCall)]
        per_turn += [b - a for a, b in itertools.pairwise(stamps)]
        per_run.append(result.wall_s / result.turns)
    bare = [asyncio.run(bare_loop(args.calls, ctx)) for _ in range(args.runs)]
    per_turn.sort()
    p50 = statistics.median(per_turn) * 1e3
    p99 = per_turn[int(0.99 * (len(per_turn) - 1))] * 1e3
    bare_ms = statistics.median(bare) * 1e3
    print(f"turns measured: {len(per_turn)} ({args.runs} runs x {args.calls} LLM calls)")
    print(
        f"agent per turn: p50 {p50:.3f} ms, p99 {p99:.3f} ms (run mean p50 {statistics.median(per_run) * 1e3:.3f} ms)"
    )
    print(f"bare loop per turn: p50 {bare_ms:.3f} ms")
    print(
        f"ratio agent/bare: {p50 / bare_ms:.1f}x; overhead p50 {p50 - bare_ms:.3f} ms (target <= 5 ms)"
    )


if __name__ == "__main__":
    main()
