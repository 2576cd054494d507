"""The ReAct loop as a LangGraph StateGraph: start -> think -> (act -> think)* -> finish.

One LLM call per `think`, at most one tool call per `act`. The budget is counted in LLM calls
(reference: 30); the last call gets the FINAL message and no tools, and LangGraph's
recursion_limit is derived from the budget instead of trusting its default (10007 since 2026).
State holds the wire messages and, beside them, their bookkeeping (kind, tokens, turn), which
is never sent to the server (defect 11). Nodes close over the run's dependencies, so the same
state can be checkpointed (SQLite) and continued by a follow-up question.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

import orjson
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph

from playscout.agent import prompts
from playscout.agent.answer import FALLBACK_ANSWER, extract_answer, is_fallback
from playscout.agent.context import (
    MessageKind,
    Meta,
    Tokenizer,
    cut_last_message,
    cut_observation,
    drop_oldest_turns,
    message_tokens,
)
from playscout.agent.parser import CALL_CLOSE, parse_tool_calls
from playscout.agent.policies.llm import FINAL_ANSWER_TOOL, LLMPolicy, Protocol, strict
from playscout.agent.tooling import Shown, recorded_call
from playscout.agent.trajectory import (
    ContextEvent,
    ErrorEvent,
    ModelCall,
    TrajectoryWriter,
)
from playscout.clients.chat import ChatResponse, ModelError, ToolCall
from playscout.config import AgentSettings
from playscout.config.presets import Preset
from playscout.tools.tool import Tool, ToolContext


class AgentState(TypedDict, total=False):
    question: str
    messages: list[dict[str, Any]]
    meta: list[Meta]
    turn: int
    dropped_turns: int
    pending: dict[str, Any] | None
    forced_final: str | None
    answer: str | None
    raw: str | None
    status: str | None
    evidence: dict[str, list[str]]


def recursion_limit(max_llm_calls: int) -> int:
    """start + finish + (think + act) per call + slack for the forced-final hop."""
    return 2 * max_llm_calls + 4


def fresh_inputs(question: str) -> dict[str, Any]:
    """What a new question resets; messages and evidence carry over within a session."""
    return {
        "question": question,
        "turn": 0,
        "pending": None,
        "forced_final": None,
        "answer": None,
        "raw": None,
        "status": None,
    }


@dataclass
class RunDeps:
    policy: LLMPolicy
    tools: Mapping[str, Tool]
    ctx: ToolContext
    settings: AgentSettings
    tokenizer: Tokenizer
    writer: TrajectoryWriter
    protocol: Protocol
    system_prompt: str
    preset: Preset
    threaded_tools: bool = True


def _ignored_note(n: int) -> str:
    plural = "call was" if n == 1 else "calls were"
    return f"\nNote: {n} more tool {plural} ignored: one call per turn."


def _observation_message(call: dict[str, Any], text: str, template: str) -> dict[str, Any]:
    """A native call's result goes back as a tool message; a text-protocol call's as the
    user message its chat template expects, wrapped by the preset's `observation_template`
    (`<tool_response>` ... for Hermes/Qwen templates)."""
    if call["id"] is not None:
        return {"role": "tool", "tool_call_id": call["id"], "name": call["name"], "content": text}
    return {"role": "user", "content": template.replace("{observation}", text)}


def _final_answer(call: ToolCall) -> str | None:
    """The `answer` argument of a structured-protocol final_answer call (None if absent)."""
    try:
        args = orjson.loads(call.arguments or "{}")
    except orjson.JSONDecodeError:
        return None
    answer = args.get("answer") if isinstance(args, dict) else None
    if answer is None:
        return None
    return str(answer).strip() or None


RUN_KEY = "__playscout_run"  # "__" keys of `configurable` stay out of checkpoint metadata


def _node(name: str) -> Any:
    async def node(state: AgentState, config: RunnableConfig) -> dict[str, Any]:
        run: AgentGraph = config["configurable"][RUN_KEY]
        result: dict[str, Any] = await getattr(run, name)(state)
        return result

    node.__name__ = name
    return node


def _route(state: AgentState, config: RunnableConfig) -> str:
    run: AgentGraph = config["configurable"][RUN_KEY]
    return run.route(state)


_COMPILED: dict[int, tuple[Any, Any]] = {}


def compiled_graph(checkpointer: Any = None) -> Any:
    """The graph is compiled once per checkpointer and process (compiling costs ~7 ms, more than
    a turn); each run's dependencies travel in `configurable[RUN_KEY]`."""
    found = _COMPILED.get(id(checkpointer))
    if found is None or found[0] is not checkpointer:
        g = StateGraph(AgentState)
        for name in ("start", "think", "act", "finish"):
            g.add_node(name, _node(name))
        g.add_edge(START, "start")
        g.add_edge("start", "think")
        g.add_conditional_edges("think", _route, ["act", "think", "finish"])
        g.add_edge("act", "think")
        g.add_edge("finish", END)
        found = (checkpointer, g.compile(checkpointer=checkpointer))
        _COMPILED[id(checkpointer)] = found
    return found[1]


class AgentGraph:
    """One run's dependencies and node logic; the compiled graph is shared (compiled_graph)."""

    def __init__(self, deps: RunDeps) -> None:
        self.deps = deps
        self.failure: Exception | None = None  # what ended the run with status error
        self.schemas = [t.schema() for t in deps.tools.values()]
        if deps.protocol == "structured":
            self.schemas = [strict(s) for s in [*self.schemas, FINAL_ANSWER_TOOL]]
        tok = deps.tokenizer
        self.schema_tokens = sum(tok.count(str(s)) for s in self.schemas)
        self.final_message = {"role": "user", "content": prompts.final_message(deps.preset)}
        self.final_tokens = message_tokens(tok, self.final_message)

    # ------------------------------------------------------------------ nodes

    def _msg(
        self, message: dict[str, Any], kind: MessageKind, turn: int
    ) -> tuple[dict[str, Any], Meta]:
        return message, Meta(
            kind=kind, tokens=message_tokens(self.deps.tokenizer, message), turn=turn
        )

    async def start(self, state: AgentState) -> dict[str, Any]:
        d = self.deps
        messages, meta = list(state.get("messages") or []), list(state.get("meta") or [])
        if not messages:
            m, x = self._msg({"role": "system", "content": d.system_prompt}, "system", 0)
            messages.append(m)
            meta.append(x)
        m, x = self._msg({"role": "user", "content": state["question"]}, "question", 0)
        return {
            "messages": [*messages, m],
            "meta": [*meta, x],
            "evidence": state.get("evidence") or {},
            "dropped_turns": state.get("dropped_turns", 0),
        }

    def _budget(self, offer_tools: bool, final: bool) -> int:
        s = self.deps.settings
        budget = s.max_context_tokens - s.llm.max_tokens
        if offer_tools and self.deps.protocol in ("native", "structured"):
            budget -= self.schema_tokens
        if final:
            budget -= self.final_tokens
        return budget

    async def think(self, state: AgentState) -> dict[str, Any]:
        d = self.deps
        turn = state.get("turn", 0) + 1
        forced = state.get("forced_final")
        if forced is None and turn >= d.settings.max_llm_calls:
            forced = "max_calls"
        messages, meta = state["messages"], state["meta"]
        update: dict[str, Any] = {"turn": turn, "pending": None}
        budget = self._budget(offer_tools=forced is None, final=forced is not None)
        notice_sent = False
        if d.settings.prune_context:
            messages, meta, dropped, fits = drop_oldest_turns(
                d.tokenizer,
                messages,
                meta,
                budget,
                prompts.context_notice,
                state.get("dropped_turns", 0),
            )
            if not fits and forced is None:
                forced = "context"
                budget = self._budget(offer_tools=False, final=True)
                fits = sum(m["tokens"] for m in meta) <= budget
        else:  # the reference: keep every turn; at the limit cut the last message and answer
            dropped = 0
            fits = sum(m["tokens"] for m in meta) <= budget
            if not fits:
                forced = forced or "context"
                messages, meta = cut_last_message(
                    d.tokenizer, messages, meta, budget, prompts.truncated_notice(d.preset)
                )
                notice_sent = True
        context_tokens = sum(m["tokens"] for m in meta)
        if dropped or not fits:
            d.writer.emit(
                ContextEvent,
                turn=turn,
                dropped_turns=dropped,
                context_tokens=context_tokens,
                budget_tokens=budget,
            )
        update.update(
            messages=messages,
            meta=meta,
            dropped_turns=state.get("dropped_turns", 0) + dropped,
            forced_final=forced,
        )
        final = forced is not None
        sent = [*messages, self.final_message] if final and not notice_sent else messages
        offer, choice = self._offer(final)
        started = time.perf_counter()
        try:
            reply = await d.policy.step(sent, offer, choice)
        except ModelError as e:
            return self._fail(update, turn, "model", e, time.perf_counter() - started)
        except Exception as e:  # a client bug must still end the run cleanly, loudly
            return self._fail(update, turn, "internal", e, time.perf_counter() - started)
        d.writer.emit(
            ModelCall,
            turn=turn,
            messages=len(sent),
            prompt_tokens=reply.usage.prompt_tokens,
            completion_tokens=reply.usage.completion_tokens,
            context_tokens=context_tokens + (self.final_tokens if final else 0),
            latency_s=reply.latency_s,
            finish_reason=reply.finish_reason,
            cut_from_bytes=reply.cut_from_bytes,
            content=reply.content,
            reasoning=reply.reasoning,
            forced_final=forced,
            tools_offered=offer is not None or (d.protocol == "text" and not final),
        )
        return self._decide(update, turn, reply, final, messages, meta)

    def _offer(self, final: bool) -> tuple[list[dict[str, Any]] | None, Any]:
        """(tools sent with the request, tool_choice). Text: none (they are in the prompt).
        Native: all but on the forced last call. Structured: a call is required every time,
        the last one to final_answer by name."""
        protocol = self.deps.protocol
        if protocol == "structured":
            if final:
                return [strict(FINAL_ANSWER_TOOL)], {
                    "type": "function",
                    "function": {"name": FINAL_ANSWER_TOOL["function"]["name"]},
                }
            return self.schemas, "required"
        if final or protocol == "text":
            return None, None
        return self.schemas, None

    def _fail(
        self, update: dict[str, Any], turn: int, kind: str, error: Exception, latency_s: float
    ) -> dict[str, Any]:
        """Ends the run with status error; the exception stays on this run object (`failure`,
        never in the checkpointed state) so that callers can tell a timeout from a refusal."""
        self.failure = error
        self.deps.writer.emit(
            ErrorEvent,
            turn=turn,
            kind=kind,
            message=f"{type(error).__name__}: {error}",
            fatal=True,
            cause=type(error).__name__,
            latency_s=round(latency_s, 4),
        )
        return {**update, "status": "error", "answer": None, "raw": None}

    def _decide(
        self,
        update: dict[str, Any],
        turn: int,
        reply: ChatResponse,
        final: bool,
        messages: list[dict[str, Any]],
        meta: list[Meta],
    ) -> dict[str, Any]:
        d = self.deps
        content = reply.content or ""
        native = (
            reply.tool_calls
            if d.protocol == "structured" or (d.protocol == "native" and not final)
            else []
        )
        if final and native and native[0].name != FINAL_ANSWER_TOOL["function"]["name"]:
            native = []  # no tool runs after the last call, whatever the server returned
        parsed = parse_tool_calls(content) if not native and not final else None
        assistant: dict[str, Any] = {"role": "assistant", "content": content}
        pending: dict[str, Any] | None = None
        if native and native[0].name == FINAL_ANSWER_TOOL["function"]["name"]:
            assistant["tool_calls"] = [native[0].model_dump()]
            m, x = self._msg(assistant, "assistant", turn)
            update.update(messages=[*messages, m], meta=[*meta, x])
            answer = _final_answer(native[0])
            if answer is None:
                return {**update, "answer": None, "raw": content, "status": "no_answer"}
            status = "no_answer" if is_fallback(answer) else "answered"
            return {**update, "answer": answer, "raw": content, "status": status}
        if native:
            first = native[0]
            assistant["tool_calls"] = [first.model_dump()]
            pending = {
                "id": first.id,
                "name": first.name,
                "arguments": first.arguments,
                "ignored": len(native) - 1,
            }
        elif parsed is not None and parsed.first is not None:
            cut = content.lower().find(CALL_CLOSE)
            if cut != -1:  # what follows the first call was never run; do not keep it
                assistant["content"] = content[: cut + len(CALL_CLOSE)]
            call = parsed.first
            pending = {"id": None, "name": call.name, "arguments": call.arguments}
            pending["ignored"] = parsed.ignored
        m, x = self._msg(assistant, "assistant", turn)
        messages, meta = [*messages, m], [*meta, x]
        update.update(messages=messages, meta=meta)
        if pending is not None:
            return {**update, "pending": pending}
        extracted = extract_answer(content, truncated=reply.finish_reason == "length")
        if extracted.kind != "none":
            status = "answered" if extracted.kind == "answer" else "no_answer"
            return {**update, "answer": extracted.answer, "raw": content, "status": status}
        if d.preset.bare_fallback_ends and FALLBACK_ANSWER.lower() in content.lower():
            return {**update, "answer": FALLBACK_ANSWER, "raw": content, "status": "no_answer"}
        if final:
            raw = d.preset.forced_final == "raw"
            d.writer.emit(
                ErrorEvent,
                turn=turn,
                kind="protocol",
                message="the forced final reply has no <answer> tag"
                + ("; its text is the answer (preset forced_final: raw)" if raw else ""),
            )
            answer = content.strip() or None if raw else None
            return {**update, "answer": answer, "raw": content, "status": "budget_exhausted"}
        errors = parsed.errors if parsed is not None else []
        d.writer.emit(
            ErrorEvent,
            turn=turn,
            kind="protocol",
            message="; ".join(errors) or "neither a tool call nor an <answer> tag",
        )
        m, x = self._msg(
            {"role": "user", "content": prompts.corrective_message(errors, d.preset)},
            "corrective",
            turn,
        )
        return {**update, "messages": [*messages, m], "meta": [*meta, x]}

    def route(self, state: AgentState) -> str:
        if state.get("status") is not None:
            return "finish"
        if state.get("pending"):
            return "act"
        return "think"

    async def act(self, state: AgentState) -> dict[str, Any]:
        d = self.deps
        call = state["pending"]
        assert call is not None
        turn = state["turn"]
        template = d.preset.observation_template

        def show(observation: str) -> Shown:
            text = observation + (_ignored_note(call["ignored"]) if call["ignored"] else "")
            cut_from = None
            if d.settings.observation_tokens is not None:
                text, cut_from = cut_observation(d.tokenizer, text, d.settings.observation_tokens)
            tokens = message_tokens(d.tokenizer, _observation_message(call, text, template))
            return Shown(text, tokens, cut_from)

        step = await recorded_call(
            d.writer,
            d.tools,
            d.ctx,
            turn,
            call["name"],
            call["arguments"],
            call_id=call["id"],
            ignored_calls=call["ignored"],
            threaded=d.threaded_tools,
            show=show,
        )
        message = _observation_message(call, step.shown.text, template)
        meta = Meta(kind="observation", tokens=step.shown.tokens, turn=turn)
        return {
            "messages": [*state["messages"], message],
            "meta": [*state["meta"], meta],
            "pending": None,
            "evidence": merge_evidence(state.get("evidence") or {}, step.summary),
        }

    async def finish(self, state: AgentState) -> dict[str, Any]:
        return {}


def merge_evidence(evidence: dict[str, list[str]], summary: dict[str, Any]) -> dict[str, list[str]]:
    """Ids seen so far, in first-seen order; QA answers as `id: answer (confidence)`."""
    out = {k: list(v) for k, v in evidence.items()}
    for key in ("doc_ids", "clip_ids"):
        for ident in summary.get(key, []):
            bucket = out.setdefault(key, [])
            if ident not in bucket:
                bucket.append(ident)
    for a in summary.get("answers", []):
        conf = a.get("confidence")
        shown = f"{a['id']}: {a.get('answer')}" + (f" ({conf})" if conf is not None else "")
        out.setdefault("qa", []).append(shown)
    return out


def tool_map(tools: Sequence[Tool]) -> dict[str, Tool]:
    return {t.name: t for t in tools}
