"""How an item is asked through the agent and its tools: the agent over a tool subset and a
context (a prompt template, a leakage guard), or one direct tool call recorded as a
trajectory. Either way the route gets the row's common fields (`Outcome`): status, turns, tool
calls, tokens, evidence; the task adds its own (a choice, a rank, a score)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from playscout.agent.answer import is_fallback
from playscout.agent.runner import AGENT_PACKAGES
from playscout.agent.tooling import recorded_call
from playscout.agent.trajectory import (
    FinalAnswer,
    JsonlRecorder,
    MemoryRecorder,
    Observation,
    RunStart,
    TrajectoryWriter,
    failure_reason,
    summarise,
)
from playscout.config import package_versions
from playscout.eval.errors import failure_kind
from playscout.eval.storage.records import Outcome
from playscout.eval.tasks.task import Instance, TaskEnv
from playscout.tools.tool import Tool, ToolContext, ToolResult


def tool_subset(names: Sequence[str]) -> tuple[Tool, ...]:
    from playscout.tools.registry import ALL_TOOLS

    by_name = {t.name: t for t in ALL_TOOLS}
    return tuple(by_name[n] for n in names if n in by_name)


async def run_agent(
    env: TaskEnv,
    ctx: ToolContext,
    prompt: str,
    trajectory: Path,
    tools: Sequence[Tool] | None = None,
) -> Outcome:
    """One agent run -> the common row fields. The fallback phrase is kept as `raw_answer`
    but never as `answer` (defect 13: it was counted as a successful answer)."""
    agent = env.runtime.agent(ctx, env.policy, llm=env.client, tools=tools, tokenizer=env.tokenizer)
    result = await agent.run(prompt, trajectory=trajectory)
    summary = summarise(result.events)
    answer, status = result.answer, result.status
    error = None
    if status == "error":
        answer, error = None, failure_reason(result.events) or "the agent run failed"
    elif answer is not None and is_fallback(answer):
        status = "no_answer"
    outcome = Outcome(
        answer=answer if status != "no_answer" else None,
        raw_answer=result.answer,
        status=status,
        forced_final=result.forced_final,
        turns=summary.turns,
        tool_calls=summary.tool_calls,
        valid_tool_calls=sum(isinstance(e, Observation) and e.error is None for e in result.events),
        prompt_tokens=summary.prompt_tokens,
        completion_tokens=summary.completion_tokens,
        errors=summary.errors,
        error=error,
        evidence=result.evidence,
        note=result.note,
        observation_errors=sorted(
            {e.error for e in result.events if isinstance(e, Observation) and e.error}
        ),
        wall_s=round(result.wall_s, 4),
    )
    kind = failure_kind(result.failure) if status == "error" else None
    return outcome.updated(error_kind=kind) if kind else outcome


async def direct_call(
    env: TaskEnv, ctx: ToolContext, tool: str, args: dict[str, Any], trajectory: Path
) -> tuple[ToolResult, Outcome]:
    """One tool call recorded as a trajectory (so timelines and tool counts cover direct routes
    too) -> (the tool's result, the common row fields without an answer)."""
    tools = {t.name: t for t in tool_subset([tool])}

    async def call(writer: TrajectoryWriter) -> ToolResult:
        return (await recorded_call(writer, tools, ctx, 1, tool, args)).result

    question = str(args.get("query", ""))
    return await record_direct(trajectory, question, ctx.sport, ctx.mode, tool, call)


async def record_direct(
    trajectory: Path,
    question: str,
    sport: str,
    mode: str,
    tool: str,
    call: Callable[[TrajectoryWriter], Awaitable[ToolResult]],
) -> tuple[ToolResult, Outcome]:
    """A direct route's one recorded step (`call` emits its events on the writer) framed as a
    run: RunStart, the step, FinalAnswer -> (its result, the common row fields)."""
    import time

    from playscout.agent.trajectory import Event

    memory = MemoryRecorder()
    writer = TrajectoryWriter(f"direct-{trajectory.stem}", [memory, JsonlRecorder(trajectory)])
    t0 = time.perf_counter()
    try:
        writer.emit(
            RunStart,
            question=question,
            sport=sport,
            mode=mode,
            policy="direct",
            tools=[tool],
            versions=package_versions(AGENT_PACKAGES),
        )
        result = await call(writer)
        status = "error" if result.error else "answered"
        wall = time.perf_counter() - t0
        writer.emit(FinalAnswer, answer=None, status=status, turns=1, wall_s=wall)
    finally:
        writer.close()
    events: list[Event] = list(memory.events)
    summary = summarise(events)
    return result, Outcome(
        status=status,
        turns=1,
        tool_calls=summary.tool_calls,
        prompt_tokens=0,
        completion_tokens=0,
        errors=int(result.error is not None),
        error=result.error,
        observation_errors=[result.error] if result.error else [],
        wall_s=round(wall, 4),
    )


async def ask_video_qa(
    env: TaskEnv, inst: Instance, trajectory: Path, video_ids: list[str]
) -> tuple[str | None, Outcome]:
    """The item's prompt to video_qa about `video_ids`, one direct call -> (the answer, the
    row's common fields)."""
    args = {"video_ids": video_ids, "query": inst.prompt}
    result, rec = await direct_call(env, env.ctx(inst.sport), "video_qa", args, trajectory)
    answer, _ = qa_answer(result)
    return answer, rec


def qa_answer(result: Any) -> tuple[str | None, float | None]:
    """First item's answer and confidence of a video_qa/document_qa ToolResult."""
    items = getattr(result.data, "items", None) or []
    for item in items:
        if item.answer:
            return item.answer, item.confidence
    return None, None
