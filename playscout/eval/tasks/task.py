"""What a task is: a loader (instances), a route through the same agent and tools (a prompt
template with a tool subset, or one direct tool call), and a metric over the stored records.

Routes return an `Outcome` (eval/records.py) that becomes the question's result row, so every
task shares the runner's resume, trajectory and report machinery, and `score` reads the rows
back typed."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

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
from playscout.clients.chat import ChatClient
from playscout.config import EvalSettings, Mode, Policy, Settings, package_versions
from playscout.config.presets import Preset
from playscout.corpus import Corpus
from playscout.eval.errors import RunError, failure_kind
from playscout.eval.guard import BackendView
from playscout.eval.records import Outcome, ResultRow
from playscout.runtime import Runtime
from playscout.search.backend_api import SearchBackend
from playscout.tools.tool import ModelSet, Tool, ToolContext, ToolResult


@dataclass
class Instance:
    """One item to answer. `gold` is whatever the task's metric needs; `meta` is kept in the
    record for slicing (question type, distractor type, ...). `missing` says why the item
    cannot be asked as its protocol says (absent video, unknown game): the runner records it as
    `missing_input` instead of routing it."""

    id: str
    sport: str
    prompt: str
    gold: Any
    meta: dict[str, Any] = field(default_factory=dict)
    missing: str | None = None


@dataclass
class TaskEnv:
    """What routes may use: a view of the run's one `Runtime` (its settings with the preset
    applied, index, corpus, preset, tracer) with the run's mode and policy, and the runtime's
    model clients as the run sees them (behind the response cache when there is one). Built
    once per run, shared by all instances (read-only)."""

    runtime: Runtime
    mode: Mode
    policy: Policy
    client: ChatClient | None = None  # runtime.llm, maybe behind the cache
    models: ModelSet = field(default_factory=ModelSet)  # runtime.models, maybe behind the cache
    tokenizer: Any = None
    media: Path | None = None  # where a published data file's videos are (`eval run --media`)
    judge: ChatClient | None = None  # eval.judge: rubric judges of T4/T6/STARBench (else fallbacks)

    @property
    def settings(self) -> Settings:
        return self.runtime.settings

    @property
    def eval(self) -> EvalSettings:
        return self.runtime.settings.eval

    @property
    def corpus(self) -> Corpus | None:
        return self.runtime.corpus

    @property
    def backend(self) -> SearchBackend | None:
        return self.runtime.backend

    @property
    def preset(self) -> Preset:
        return self.runtime.preset

    @property
    def deviations(self) -> list[str]:
        return self.runtime.deviations

    def ctx(self, sport: str, view: BackendView | None = None, **search: Any) -> ToolContext:
        backend = self.runtime.require_backend()
        settings = (
            self.settings.search.model_copy(update=search) if search else self.settings.search
        )
        narrowed: Any = view.wrap(backend) if view else backend  # a GuardedBackend
        return self.runtime.tool_context(
            sport, self.mode, backend=narrowed, search=settings, models=self.models
        )

    def need_corpus(self) -> Corpus:
        if self.corpus is None:
            raise RunError("this task needs a corpus: pass --corpus (or settings.corpus_dir)")
        return self.corpus


AGENT = "agent"
AGENT_CALLS = frozenset({AGENT})
"""`Task.calls` of a task whose route runs the agent (which may call any of its tools)."""


class Task(Protocol):
    """A task over generated questions. One that reads the corpus' question files may also say
    which sports have none, `empty_sports(corpus, sports)` (T9): a run that chose its sports
    itself skips those (usecases/run.py)."""

    name: str
    description: str
    needs_index: bool
    judged: bool  # answers scored by a T9-style judge step (else by `score`)
    calls: frozenset[str]  # the tools its route calls itself, or AGENT_CALLS (preflight reads it)

    def load(self, env: TaskEnv, sports: Sequence[str], limit: int | None) -> list[Instance]: ...

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome: ...

    def score(self, records: list[ResultRow]) -> dict[str, Any]: ...


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
