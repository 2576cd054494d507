"""The OpenAI-compatible facade: `POST /v1/chat/completions` with model `playscout-agent` (or
one of its aliases, serving/choices.py) runs one ask, so any OpenAI client (the official SDK,
chat UIs, LangChain) can ask the agent.

The last user message is the question; earlier messages are not sent to the agent (continue
a conversation with `session_id`). playscout's own choices are the model (an alias names a
sport, mode and policy; `playscout-agent` the server's defaults) and extra body fields that
override it: `sport`, `mode`, `policy`, `session_id` (the SDK's `extra_body`). Generation settings (`temperature`,
`max_tokens`, ...) are accepted so that stock clients work, but the agent's model settings are
the server's: the response names the ones it ignored in `X-Playscout-Ignored-Params`. Fields
that would change what the answer is (`tools`, `response_format`, `n` > 1, ...) are 422s.

A streamed completion sends the agent's progress as `reasoning_content` deltas (one line per
tool call and observation; the convention reasoning-aware clients show as "thinking"), then
the answer as `content` (or, when the run has none, one sentence saying why: never an empty
reply), a last chunk with the finish reason and the native ask body under
`playscout`, and `data: [DONE]`. A failure ends the stream with `data: {"error": {...}}` (the
object the blocking call answers with, which the OpenAI SDK raises as `APIError`), then
`[DONE]`.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from playscout.agent.ids import ID_PATTERN
from playscout.agent.trajectory import ErrorEvent, Event, Observation, ToolCallEvent
from playscout.config import Mode, Policy
from playscout.serving.asks import AskRejected, AskRun
from playscout.serving.choices import AGENT_MODEL
from playscout.serving.schemas import AskResponse
from playscout.serving.streaming import KEEPALIVE, Items, Render, error_object, sse
from playscout.usecases.ask import AskRequest
from playscout.usecases.ask import Choice as AskChoice

STARTED = int(time.time())
IGNORED_PARAMS = (
    "temperature",
    "top_p",
    "max_tokens",
    "max_completion_tokens",
    "seed",
    "stop",
    "presence_penalty",
    "frequency_penalty",
    "user",
    "metadata",
    "store",
    "parallel_tool_calls",
    "reasoning_effort",
)
IGNORED_HEADER = "X-Playscout-Ignored-Params"
DONE = b"data: [DONE]\n\n"


class UnknownModel(AskRejected):
    status_code = 404


class ChatMessageIn(BaseModel):
    """Any message an OpenAI client sends; only user messages' text is read."""

    model_config = ConfigDict(extra="allow")

    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[dict[str, Any]] | None = None


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="allow")

    include_usage: bool = False


class ChatCompletionRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: str = Field(
        description=f"`{AGENT_MODEL}` (the server's defaults) or an alias (GET /v1/models)."
    )
    messages: list[ChatMessageIn] = Field(
        min_length=1, max_length=200, description="The last user message is the question."
    )
    stream: bool = False
    stream_options: StreamOptions | None = None
    n: int | None = Field(None, ge=1, le=1, description="One answer per request.")
    sport: str | None = Field(
        None, description="playscout: a sport present in the index [default: the model's]."
    )
    mode: Mode | None = Field(
        None, description="playscout: default or oracle [default: the model's]."
    )
    policy: Policy | None = Field(
        None, description="playscout: llm or workflow [default: the model's]."
    )
    session_id: str | None = Field(
        None, pattern=ID_PATTERN, description="playscout: continue an earlier conversation."
    )
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    max_completion_tokens: int | None = None
    seed: int | None = None
    stop: str | list[str] | None = None
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    user: str | None = None
    metadata: dict[str, str] | None = None
    store: bool | None = None
    parallel_tool_calls: bool | None = None
    reasoning_effort: str | None = None


class AssistantMessage(BaseModel):
    role: Literal["assistant"] = "assistant"
    content: str | None


class Choice(BaseModel):
    index: int = 0
    message: AssistantMessage
    finish_reason: Literal["stop", "length"]
    logprobs: None = None


class CompletionUsage(BaseModel):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class ChatCompletion(BaseModel):
    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str = AGENT_MODEL
    choices: list[Choice]
    usage: CompletionUsage
    playscout: AskResponse = Field(description="The native /v1/ask body: evidence, status, ids.")


class ModelChoice(BaseModel):
    sport: str
    mode: Mode
    policy: Policy


class ModelCard(BaseModel):
    id: str = AGENT_MODEL
    object: Literal["model"] = "model"
    created: int = STARTED
    owned_by: str = "playscout"
    playscout: ModelChoice | None = Field(None, description="What an ask with this model runs.")

    @classmethod
    def of(cls, name: str, choice: AskChoice) -> ModelCard:
        pick = ModelChoice(sport=choice.sport, mode=choice.mode, policy=choice.policy)
        return cls(id=name, playscout=pick)


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelCard]


def _text(message: ChatMessageIn, index: int) -> str:
    if message.content is None or isinstance(message.content, str):
        return message.content or ""
    parts = []
    for part in message.content:
        if part.get("type") != "text":
            raise AskRejected(
                f"messages[{index}].content: only text parts are supported, "
                f"not {part.get('type')!r}",
                "unsupported_content",
            )
        parts.append(str(part.get("text", "")))
    return "\n".join(parts)


def unknown_model(name: str) -> UnknownModel:
    return UnknownModel(
        f"the model {name!r} does not exist; this server serves {AGENT_MODEL!r} and the "
        "aliases GET /v1/models lists",
        "model_not_found",
    )


def ask_request(
    body: ChatCompletionRequest, aliases: dict[str, AskChoice]
) -> tuple[AskRequest, list[str]]:
    """The native ask this completion runs (the request's fields over its model's alias),
    and the generation fields it ignores."""
    base = aliases.get(body.model)
    if base is None:
        raise unknown_model(body.model)
    users = [i for i, m in enumerate(body.messages) if m.role == "user"]
    if not users:
        raise AskRejected("messages: no user message (the last one is the question)", "no_question")
    question = _text(body.messages[users[-1]], users[-1])
    ignored = sorted(set(IGNORED_PARAMS) & body.model_fields_set)
    ask = AskRequest(
        question=question,
        sport=body.sport or base.sport,
        mode=body.mode or base.mode,
        policy=body.policy or base.policy,
        session_id=body.session_id,
    )
    return ask, ignored


def _finish_reason(status: str) -> Literal["stop", "length"]:
    return "length" if status == "budget_exhausted" else "stop"


_NO_ANSWER = {
    "budget_exhausted": "the agent's model-call budget ran out before it answered",
    "no_answer": "the agent found no evidence that answers this question",
}


def answer_content(resp: AskResponse) -> str:
    """What the assistant says: the answer, or one plain sentence on why there is none. A
    chat UI shows `content`, so an ask without an answer must never read as an empty reply."""
    if resp.answer and resp.answer.strip():
        return resp.answer
    why = _NO_ANSWER.get(resp.status, f"the run ended with status {resp.status}")
    return f"No answer: {why} (trajectory {resp.trajectory_id})."


def _usage(resp: AskResponse) -> CompletionUsage:
    u = resp.usage
    return CompletionUsage(
        prompt_tokens=u.prompt_tokens,
        completion_tokens=u.completion_tokens,
        total_tokens=u.prompt_tokens + u.completion_tokens,
    )


def completion(resp: AskResponse, model: str) -> ChatCompletion:
    return ChatCompletion(
        id=f"chatcmpl-{resp.trajectory_id}",
        model=model,
        created=int(time.time()),
        choices=[
            Choice(
                message=AssistantMessage(content=answer_content(resp)),
                finish_reason=_finish_reason(resp.status),
            )
        ],
        usage=_usage(resp),
        playscout=resp,
    )


def progress_line(event: Event) -> str | None:
    """One human line per step, for the `reasoning_content` delta; None for other events."""
    if isinstance(event, ToolCallEvent):
        args = event.arguments if isinstance(event.arguments, str) else json.dumps(event.arguments)
        return f"[turn {event.turn}] {event.name} {args}\n"
    if isinstance(event, Observation):
        found = {"docs": "doc_ids", "clips": "clip_ids", "answers": "answers"}
        counts = [f"{len(event.data[k])} {what}" for what, k in found.items() if event.data.get(k)]
        outcome = f"error: {event.error}" if event.error else ", ".join(counts) or "done"
        return f"[turn {event.turn}] {event.name} -> {outcome} ({event.latency_s:.2f} s)\n"
    if isinstance(event, ErrorEvent):
        return f"[error] {event.message}\n"
    return None


def chat_chunks(include_usage: bool, model: str) -> Render:
    """The renderer of a streamed completion (see the module docstring)."""

    async def render(run: AskRun, items: Items) -> AsyncIterator[bytes]:
        created = int(time.time())
        head = {
            "id": f"chatcmpl-{run.trajectory_id}",
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
        }

        def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
            choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
            return sse(None, {**head, "choices": [choice], **extra})

        yield chunk({"role": "assistant", "content": ""})
        async for event in items:
            if event is None:
                yield KEEPALIVE
            elif (line := progress_line(event)) is not None:
                yield chunk({"reasoning_content": line})
        try:
            resp = await run.result()
        except Exception as e:
            yield sse(None, error_object(e))
            yield DONE
            return
        yield chunk({"content": answer_content(resp)})
        yield chunk({}, _finish_reason(resp.status), playscout=resp.model_dump(mode="json"))
        if include_usage:
            usage = _usage(resp).model_dump()
            yield sse(None, {**head, "choices": [], "usage": usage})
        yield DONE

    return render
