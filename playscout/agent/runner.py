"""Running the agent from code: `Agent(ctx, client=...).run(question)`.

One Agent per (tool context, policy, settings); each `run` is one question with its own run id
and trajectory. `session_id` plus a checkpointer (see `session_store`) continues an earlier
conversation. `stream` yields the trajectory events live for the HTTP API.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

from pydantic import BaseModel, ConfigDict, Field

from playscout.agent import prompts
from playscout.agent.context import Tokenizer, default_tokenizer
from playscout.agent.graph import (
    RUN_KEY,
    AgentGraph,
    RunDeps,
    compiled_graph,
    fresh_inputs,
    recursion_limit,
)
from playscout.agent.ids import new_id, valid_id
from playscout.agent.policies.llm import FINAL_ANSWER_TOOL, LLMPolicy
from playscout.agent.policies.workflow import run_workflow
from playscout.agent.question import visible_question
from playscout.agent.trajectory import (
    CallbackRecorder,
    ErrorEvent,
    Event,
    FinalAnswer,
    JsonlRecorder,
    MemoryRecorder,
    Recorder,
    RunStart,
    TrajectoryWriter,
)
from playscout.clients.chat import ChatClient, ModelError
from playscout.config import DEFAULT_POLICY, AgentSettings, Policy, package_versions, redact_urls
from playscout.config.presets import DEFAULT_PRODUCT_PRESET, Preset, load_preset
from playscout.errors import PlayscoutError, one_line
from playscout.storage import ProcessOwner, storage_error_in
from playscout.tools.tool import Tool, ToolContext

AGENT_PACKAGES = ("playscout", "langgraph", "langchain-core", "pydantic", "tokenizers")
"""What a trajectory's run_start records about the stack that produced it."""


class AgentError(PlayscoutError, ValueError):
    """A run that cannot start (no client for the llm policy, unknown policy): one line."""


class AgentResult(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    run_id: str
    question: str
    answer: str | None
    status: str
    error: str | None = None  # why a run ended with status error, in one line
    failure: Exception | None = Field(None, exclude=True, repr=False)  # the exception itself
    forced_final: str | None = None
    turns: int = 0
    evidence: dict[str, list[str]] = Field(default_factory=dict)
    policy: str
    note: str | None = None
    trajectory: Path | None = None
    events: list[Any] = Field(default_factory=list)
    wall_s: float = 0.0


def default_tools(ctx: ToolContext, preset: Preset) -> tuple[Tool, ...]:
    """The preset's tools for the context's mode (never a pixel or audio reader in oracle)."""
    from playscout.tools.offer import offered_tools

    return offered_tools(
        preset.offered(ctx.mode), ctx.mode, ctx.search, ctx.qa, preset.schema_style
    )


class Agent:
    def __init__(
        self,
        ctx: ToolContext,
        *,
        client: ChatClient | None = None,
        tools: Sequence[Tool] | None = None,
        settings: AgentSettings | None = None,
        policy: Policy = DEFAULT_POLICY,
        tokenizer: Tokenizer | None = None,
        checkpointer: Any = None,
        threaded_tools: bool = True,
        preset: Preset | None = None,
        deviations: Sequence[str] = (),
        tracer: Any = None,
        capture_content: bool = False,
        content_chars: int = 4096,
    ) -> None:
        """`tracer`: an OpenTelemetry tracer; each run then records its spans (agent/tracing),
        with questions, answers, tool arguments and results (each cut to `content_chars`)
        only when `capture_content`."""
        if policy not in ("llm", "workflow"):
            raise AgentError(f"unknown policy {policy!r}; use llm or workflow")
        if policy == "llm" and client is None:
            raise AgentError(
                "the llm policy needs a model: pass --llm-url and --llm-model (or set "
                "PLAYSCOUT_AGENT__LLM__BASE_URL/MODEL), or use --policy workflow"
            )
        from playscout.tools.describe import described
        from playscout.tools.offer import without_media

        self.ctx = ctx
        self.client = client
        self.preset = preset or load_preset(DEFAULT_PRODUCT_PRESET)
        self.deviations = list(deviations)
        chosen = tools if tools is not None else default_tools(ctx, self.preset)
        self.tools = described(without_media(chosen, ctx.mode), ctx.search, ctx.qa)
        self.settings = settings or AgentSettings()
        self.policy_name: Policy = policy
        self.tokenizer = tokenizer or default_tokenizer(
            str(self.settings.tokenizer_path) if self.settings.tokenizer_path else None
        )
        self.checkpointer = checkpointer
        self.threaded_tools = threaded_tools
        self.tracer = tracer
        self.capture_content = capture_content
        self.content_chars = content_chars
        self._llm = LLMPolicy(client, self.settings) if client is not None else None
        self._prompts: dict[str, str] = {}

    async def run(
        self,
        question: str,
        *,
        session_id: str | None = None,
        trajectory: Path | None = None,
        recorders: Sequence[Recorder] = (),
        on_event: Callable[[Event], None] | None = None,
        run_id: str | None = None,
        span_attributes: Mapping[str, Any] | None = None,
    ) -> AgentResult:
        """`run_id`: the id the caller already handed out for this run (the API's trajectory
        id), so events, spans, file and URLs name one id; minted here when not given.
        `span_attributes`: extra attributes of the run's `invoke_agent` span (a viewer link)."""
        visible_question(question)  # BlankQuestion: nothing to ask
        if run_id is not None and not valid_id(run_id):
            raise AgentError(f"run id {run_id!r} is not an id (letters, digits, _ and -)")
        run_id = run_id or new_id()
        memory = MemoryRecorder()
        sinks: list[Recorder] = [memory, *recorders]
        if trajectory is not None:
            sinks.append(JsonlRecorder(trajectory))
        if on_event is not None:
            sinks.append(CallbackRecorder(on_event))
        if self.tracer is not None:
            sinks.append(self._span_recorder(span_attributes))
        writer = TrajectoryWriter(run_id, sinks)
        start = time.perf_counter()
        try:
            result = await self._run(question, run_id, writer, session_id)
            result.wall_s = time.perf_counter() - start
            writer.emit(
                FinalAnswer,
                answer=result.answer,
                raw=result.note if self.policy_name == "workflow" else None,
                status=result.status,
                forced_final=result.forced_final,
                turns=result.turns,
                evidence=result.evidence,
                wall_s=result.wall_s,
            )
        finally:
            writer.close()
        result.trajectory = trajectory
        result.events = list(memory.events)
        return result

    async def stream(self, question: str, **kwargs: Any) -> AsyncIterator[Event]:
        """Events as they happen; the last one is the final_answer event."""
        queue: asyncio.Queue[Event | None] = asyncio.Queue()
        task = asyncio.create_task(self.run(question, on_event=queue.put_nowait, **kwargs))
        task.add_done_callback(lambda _: queue.put_nowait(None))
        while (event := await queue.get()) is not None:
            yield event
        await task  # re-raise a crash of the run itself

    def run_sync(self, question: str, **kwargs: Any) -> AgentResult:
        return asyncio.run(self.run(question, **kwargs))

    # ------------------------------------------------------------------ internals

    def _span_recorder(self, extra: Mapping[str, Any] | None) -> Recorder:
        from playscout.agent.tracing import SpanRecorder, server_attributes

        llm = self.settings.llm
        request: dict[str, Any] = {
            "gen_ai.request.temperature": llm.temperature,
            "gen_ai.request.max_tokens": llm.max_tokens,
        }
        request.update(server_attributes(getattr(self.client, "base_url", None)))
        return SpanRecorder(
            self.tracer,
            request,
            capture_content=self.capture_content,
            content_chars=self.content_chars,
            run_attributes=extra,
        )

    def _failed(
        self,
        run_id: str,
        question: str,
        writer: TrajectoryWriter,
        kind: str,
        error: Exception,
        *,
        recorded: bool = False,
    ) -> AgentResult:
        """An error run: the fatal event (unless the graph recorded it) and the exception."""
        message = f"{type(error).__name__}: {error}"
        if not recorded:
            writer.emit(
                ErrorEvent, kind=kind, message=message, fatal=True, cause=type(error).__name__
            )
        return AgentResult(
            run_id=run_id,
            question=question,
            answer=None,
            status="error",
            policy=self.policy_name,
            error=one_line(message),
            failure=error,
        )

    def _system_prompt(self, protocol: str, model: str) -> str:
        """Built once per Agent, protocol and model: it depends only on the context, the tools
        and the preset's generation profile for the model."""
        key = f"{protocol}|{model}"
        if key not in self._prompts:
            prompt = self.preset.profile(model).system_prompt
            extra = [FINAL_ANSWER_TOOL] if protocol == "structured" else []
            text = prompts.system_prompt(self.ctx, self.tools, protocol, self.preset, prompt, extra)
            if protocol == "structured":
                text += "\n\n" + prompts.render("structured_note")
            self._prompts[key] = text
        return self._prompts[key]

    def _run_start(self, writer: TrajectoryWriter, question: str, **extra: Any) -> None:
        writer.emit(
            RunStart,
            question=question,
            sport=self.ctx.sport,
            mode=self.ctx.mode,
            policy=self.policy_name,
            tools=[t.name for t in self.tools],
            settings={
                "agent": redact_urls(self.settings.model_dump(mode="json")),
                "search": self.ctx.search.model_dump(mode="json"),
                "tokenizer": self.tokenizer.name,
            },
            preset=self.preset.name,
            preset_version=self.preset.version,
            preset_deviations=self.deviations,
            versions=package_versions(AGENT_PACKAGES),
            owner=ProcessOwner.me(),
            **extra,
        )

    async def _run(
        self, question: str, run_id: str, writer: TrajectoryWriter, session_id: str | None
    ) -> AgentResult:
        tools = {t.name: t for t in self.tools}
        if self.policy_name == "workflow":
            self._run_start(writer, question, model=None, session_id=session_id)
            out = await run_workflow(question, self.ctx, tools, writer)
            return AgentResult(run_id=run_id, question=question, policy="workflow", **out)
        assert self._llm is not None
        try:
            protocol = await self._llm.resolve_protocol()
        except ModelError as e:  # the protocol probe is the run's first model call
            self._run_start(writer, question, model=self._llm.model, session_id=session_id)
            return self._failed(run_id, question, writer, "model", e)
        self._run_start(
            writer,
            question,
            model=self._llm.model,
            session_id=session_id,
            tool_protocol=f"{protocol} ({self._llm.protocol_source})",
        )
        deps = RunDeps(
            policy=self._llm,
            tools=tools,
            ctx=self.ctx,
            settings=self.settings,
            tokenizer=self.tokenizer,
            writer=writer,
            protocol=protocol,
            system_prompt=self._system_prompt(protocol, self._llm.model),
            preset=self.preset,
            threaded_tools=self.threaded_tools,
        )
        use_checkpoints = session_id is not None and self.checkpointer is not None
        graph = compiled_graph(self.checkpointer if use_checkpoints else None)
        run = AgentGraph(deps)
        configurable: dict[str, Any] = {RUN_KEY: run}
        if use_checkpoints:
            configurable["thread_id"] = session_id
        config: dict[str, Any] = {
            "recursion_limit": recursion_limit(self.settings.max_llm_calls),
            "configurable": configurable,
        }
        try:
            state: dict[str, Any] = await graph.ainvoke(
                cast(Any, fresh_inputs(question)), config=cast(Any, config)
            )
        except Exception as e:  # recursion limit or a bug in a node: an error run, not a crash
            kind = "storage" if storage_error_in(e) is not None else "internal"  # sessions' db
            return self._failed(run_id, question, writer, kind, e)
        if run.failure is not None:  # the graph ended the run and recorded why
            return self._failed(run_id, question, writer, "model", run.failure, recorded=True)
        return AgentResult(
            run_id=run_id,
            question=question,
            answer=state.get("answer"),
            status=state.get("status") or "error",
            forced_final=state.get("forced_final"),
            turns=state.get("turn", 0),
            evidence=state.get("evidence") or {},
            policy="llm",
        )


@contextlib.asynccontextmanager
async def session_store(path: Path) -> AsyncIterator[Any]:
    """A SQLite checkpointer for multi-turn sessions (one per process: SQLite serialises
    writers, several savers on one file give `database is locked`)."""
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    async with AsyncSqliteSaver.from_conn_string(str(path)) as saver:
        yield saver
