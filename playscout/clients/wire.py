"""Chat Completions wire format: our typed messages to JSON, and a JSON reply back to a
ChatResponse. Kept apart from the transport so both directions can be tested without a server.

Only what the API defines is sent (no internal bookkeeping, reference defect 11).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import orjson

from playscout.clients.chat import (
    ChatMessage,
    ChatParams,
    ChatResponse,
    ImagePart,
    TextPart,
    ToolCall,
    Usage,
    VideoPart,
)
from playscout.errors import PlayscoutError


class WireError(PlayscoutError, ValueError):
    """A 2xx body that is not a chat completion; the message says what is wrong."""


def _part(part: TextPart | ImagePart | VideoPart) -> dict[str, Any]:
    if isinstance(part, ImagePart):
        return {"type": "image_url", "image_url": {"url": part.url}}
    if isinstance(part, VideoPart):
        return {"type": "video_url", "video_url": {"url": part.url}}
    return {"type": "text", "text": part.text}


def message_to_wire(msg: ChatMessage) -> dict[str, Any]:
    out: dict[str, Any] = {"role": msg.role}
    out["content"] = (
        msg.content if isinstance(msg.content, str) else [_part(p) for p in msg.content]
    )
    if msg.tool_calls:
        out["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in msg.tool_calls
        ]
    if msg.tool_call_id is not None:
        out["tool_call_id"] = msg.tool_call_id
    if msg.name is not None:
        out["name"] = msg.name
    return out


# OpenAI's reasoning families take `max_completion_tokens` (they refuse `max_tokens`), as the
# reference's GPT-5 chat client sends it; a served name may carry a provider prefix.
_COMPLETION_TOKENS = re.compile(r"(^|/)(gpt-5|o[134])([.\-_]|$)", re.I)


def takes_completion_tokens(model: str, params: ChatParams) -> bool:
    """Whether the budget goes as `max_completion_tokens`: a reasoning family by its name, or
    any model asked for a reasoning effort."""
    return bool(params.reasoning_effort) or bool(_COMPLETION_TOKENS.search(model))


def request_body(
    model: str,
    messages: Sequence[ChatMessage],
    tools: list[dict[str, Any]] | None,
    params: ChatParams,
) -> dict[str, Any]:
    """Generation settings are applied exactly as given (reference defect 3); extra_body wins
    last so server-specific knobs (e.g. chat_template_kwargs) can override anything."""
    body: dict[str, Any] = {
        "model": model,
        "messages": [message_to_wire(m) for m in messages],
        "temperature": params.temperature,
        "top_p": params.top_p,
    }
    if takes_completion_tokens(model, params):
        body["max_completion_tokens"] = params.max_tokens
    else:
        body["max_tokens"] = params.max_tokens
    if params.reasoning_effort:
        body["reasoning_effort"] = params.reasoning_effort
    if params.stop:
        body["stop"] = list(params.stop)
    if tools:
        body["tools"] = tools
        if params.tool_choice is not None:
            body["tool_choice"] = params.tool_choice
    body.update(params.extra_body)
    return body


def _text(content: Any) -> str:
    """Content is a string, null (tool-call only), or a list of parts on some servers."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(p.get("text", ""))
            for p in content
            if isinstance(p, dict) and p.get("type") == "text"
        )
    raise WireError(f"message content has type {type(content).__name__}")


def _tool_calls(raw: Any) -> list[ToolCall]:
    if not raw:
        return []
    if not isinstance(raw, list):
        raise WireError("tool_calls is not a list")
    calls = []
    for i, item in enumerate(raw):
        fn = item.get("function") if isinstance(item, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            raise WireError(f"tool_calls[{i}] has no function name")
        args = fn.get("arguments", "")
        if not isinstance(args, str):  # some servers send an object; keep the raw-JSON contract
            args = orjson.dumps(args).decode()
        calls.append(
            ToolCall(id=str(item.get("id") or f"call_{i}"), name=fn["name"], arguments=args)
        )
    return calls


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def parse_response(raw: bytes, latency_s: float, requested_model: str) -> ChatResponse:
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        raise WireError(f"body is not JSON ({e})") from None
    if not isinstance(body, dict):
        raise WireError("body is not a JSON object")
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise WireError("no choices in the reply")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise WireError("choices[0] has no message")
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    raw_usage = body.get("usage")
    usage: dict[str, Any] = raw_usage if isinstance(raw_usage, dict) else {}
    finish = choices[0].get("finish_reason")
    return ChatResponse(
        content=_text(message.get("content")),
        reasoning=reasoning if isinstance(reasoning, str) and reasoning else None,
        tool_calls=_tool_calls(message.get("tool_calls")),
        usage=Usage(
            prompt_tokens=_int(usage.get("prompt_tokens")),
            completion_tokens=_int(usage.get("completion_tokens")),
        ),
        latency_s=latency_s,
        model=str(body.get("model") or requested_model),
        finish_reason=finish if isinstance(finish, str) else None,
    )


REPLY_BYTES_PER_TOKEN = 32
"""A reply of `max_tokens` tokens averages far fewer bytes per token than this in any
tokenizer; one longer than max_tokens × 32 bytes ignored max_tokens (a server that does not
honour it), and is cut there."""
ENVELOPE_BYTES = 64 * 1024


def reply_cap(max_tokens: int, max_reply_bytes: int) -> int:
    """Most bytes of text one reply may keep, per text (content, reasoning, tool arguments)."""
    return max(1, min(max_reply_bytes, max_tokens * REPLY_BYTES_PER_TOKEN))


def body_limit(cap: int) -> int:
    """Most bytes of a reply's body read off the socket: its texts at the cap, JSON-escaped
    (up to 6 bytes a character), plus the envelope. Past it the reading stops, so a server that
    sends 20 MB costs this much memory, not 20 MB."""
    return 16 * cap + ENVELOPE_BYTES


def _utf8_cut(text: str, cap: int) -> tuple[str, int]:
    """(`text` cut to at most `cap` bytes of UTF-8 on a character boundary, its size)."""
    if len(text) * 4 <= cap:
        return text, len(text.encode("utf-8", "surrogatepass"))
    raw = text.encode("utf-8", "surrogatepass")
    return (raw[:cap].decode("utf-8", "ignore") if len(raw) > cap else text), len(raw)


def bound_reply(reply: ChatResponse, cap: int) -> ChatResponse:
    """The reply with each text cut to `cap` bytes; a cut one says so (`cut_from_bytes`, the
    texts' bytes before; finish_reason `length`, as a server that stops at max_tokens says)."""
    content, size = _utf8_cut(reply.content, cap)
    reasoning, r_size = _utf8_cut(reply.reasoning, cap) if reply.reasoning else (None, 0)
    size += r_size
    calls = []
    for call in reply.tool_calls:
        arguments, a_size = _utf8_cut(call.arguments, cap)
        size += a_size
        if arguments != call.arguments:
            call = call.model_copy(update={"arguments": arguments})
        calls.append(call)
    cut = content != reply.content or reasoning != reply.reasoning or calls != reply.tool_calls
    if not cut:
        return reply
    return reply.model_copy(
        update={
            "content": content,
            "reasoning": reasoning,
            "tool_calls": calls,
            "finish_reason": "length",
            "cut_from_bytes": max(size, reply.cut_from_bytes or 0),
        }
    )


_CONTENT_KEY = re.compile(rb'"content"\s*:\s*"')
# a JSON string's characters up to its end or its first incomplete escape: runs of plain
# characters between escapes, possessive (no backtracking state kept per character)
_JSON_STRING_BODY = re.compile(r'[^"\\]*+(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\]*+)*+')
_LONE_HIGH_SURROGATE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}$")


def partial_response(
    raw: bytes, cap: int, latency_s: float, requested_model: str, read: int
) -> ChatResponse:
    """A body cut off at `body_limit` (`read`: bytes received by then, at least): the start
    of its message's content, cut to `cap`; no tool call (its JSON is incomplete)."""
    text = ""
    if (found := _CONTENT_KEY.search(raw)) is not None:
        tail = raw[found.end() : found.end() + 6 * cap + 16].decode("utf-8", "ignore")
        body = _JSON_STRING_BODY.match(tail)
        escaped = _LONE_HIGH_SURROGATE.sub("", body.group(0) if body else "")
        try:
            text = json.loads(f'"{escaped}"')
        except ValueError:
            text = ""
    content, _ = _utf8_cut(text, cap)
    return ChatResponse(
        content=content,
        latency_s=latency_s,
        model=requested_model,
        finish_reason="length",
        cut_from_bytes=read,
    )
