"""The `<tool_call>` text protocol, parsed defensively.

Models served without a tool parser write calls as text. The reference parsed raw content, so a
draft call inside `<think>` could run, and it picked up any JSON containing "name" (defects 10).
Here reasoning is removed first, only `<tool_call>` blocks count, and the parser never raises:
whatever it cannot read comes back as an error line the model is shown.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, NamedTuple

import json5

from playscout.clients.reasoning import strip_reasoning as strip_reasoning  # one definition

CALL_OPEN, CALL_CLOSE = "<tool_call>", "</tool_call>"
_PRIVATE_USE = range(0xE000, 0xF900)  # sentinels for "<" are drawn from here
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


class ParsedCall(NamedTuple):
    name: str
    arguments: dict[str, Any]
    raw: str


class ParseResult(NamedTuple):
    calls: list[ParsedCall]
    errors: list[str]

    @property
    def first(self) -> ParsedCall | None:
        return self.calls[0] if self.calls else None

    @property
    def ignored(self) -> int:
        """Calls beyond the first: the agent runs one call per turn and says so."""
        return max(0, len(self.calls) - 1)


def call_blocks(visible: str) -> list[str]:
    """Every `<tool_call>` opener starts a block that ends at its closing tag, the next opener,
    or the end of the text (a call cut off by max_tokens or a missing tag is still read)."""
    low = visible.lower()
    blocks: list[str] = []
    pos = low.find(CALL_OPEN)
    if pos == -1:
        end = low.find(CALL_CLOSE)
        return [visible[:end]] if end != -1 and "{" in visible[:end] else []
    while pos != -1:
        start = pos + len(CALL_OPEN)
        nxt = low.find(CALL_OPEN, start)
        close = low.find(CALL_CLOSE, start)
        end = min(x for x in (close, nxt, len(visible)) if x != -1)
        blocks.append(visible[start:end])
        pos = nxt
    return blocks


def _scan(text: str, start: int) -> Iterator[tuple[int, str, bool]]:
    """(index, character, inside a string literal) from `start`: JSON's double quotes, the
    single quotes models also write, and backslash escapes."""
    in_str, esc, quote = False, False, ""
    for i in range(start, len(text)):
        ch = text[i]
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == quote:
                in_str = False
                yield i, ch, True
                continue
        elif ch in "\"'":
            in_str, quote = True, ch
        yield i, ch, in_str


def _balanced(text: str) -> tuple[str, list[str]]:
    """From the first `{` to its matching `}` (string-aware), plus the closers still open if
    the text ends first."""
    start = text.find("{")
    if start == -1:
        return "", []
    stack: list[str] = []
    for i, ch, in_str in _scan(text, start):
        if in_str:
            continue
        if ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]":
            if stack and stack[-1] == ch:
                stack.pop()
            if not stack:
                return text[start : i + 1], []
    return text[start:].rstrip(), list(reversed(stack))


def loads_tolerant(text: str) -> Any:
    """json, then small repairs (trailing commas, single quotes, missing closers), then json5.
    Raises ValueError with the json error otherwise."""
    candidate, missing = _balanced(text)
    if not candidate:
        raise ValueError("no JSON object")
    try:
        return json.loads(candidate + "".join(missing))
    except json.JSONDecodeError as first_error:
        repaired = _TRAILING_COMMA.sub(r"\1", candidate.rstrip().rstrip(","))
        if '"' not in repaired:
            repaired = repaired.replace("'", '"')
        repaired = _TRAILING_COMMA.sub(r"\1", repaired + "".join(missing))
        try:
            return json.loads(repaired)
        except json.JSONDecodeError:
            pass
        try:  # unquoted keys, mixed quotes, comments: what models write and json5 reads
            return json5.loads(candidate + "".join(missing))
        except ValueError:
            pass
        raise ValueError(f"not valid JSON ({first_error.msg})") from None


def normalise_call(obj: Any, raw: str) -> ParsedCall:
    """A call object as models write it: `arguments` (or `parameters`) as an object or as a
    JSON string; missing arguments mean none."""
    if not isinstance(obj, dict):
        raise ValueError("a tool call must be a JSON object")
    name = obj.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ValueError('a tool call needs a string "name"')
    args = obj.get("arguments", obj.get("parameters", {}))
    if isinstance(args, str):
        args = loads_tolerant(args) if args.strip() else {}
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise ValueError('"arguments" must be a JSON object')
    return ParsedCall(name.strip(), args, raw)


def _sentinel(content: str) -> str:
    """A private-use character the text does not contain, so putting `<` back is exact (a fixed
    one could be an argument's own character: "\\ue000" decodes to it)."""
    present = set(content)
    for code in _PRIVATE_USE:
        if chr(code) not in present:
            return chr(code)
    raise ValueError("text uses every private-use character")  # 6,400 distinct: not a reply


def _shield(block: str, lt: str) -> str:
    """`<` inside the JSON string literals of a call becomes `lt`: an argument that mentions
    `<think>` is data, not reasoning. Tags outside strings keep their meaning."""
    start = block.find("{")
    if start == -1:
        return block
    end = start + len(_balanced(block)[0])
    out = list(block)
    for i, ch, in_str in _scan(block[:end], start):
        if in_str and ch == "<":
            out[i] = lt
    return "".join(out)


def _shield_calls(content: str, lt: str) -> str:
    low, out, pos = content.lower(), [], 0
    opener = low.find(CALL_OPEN)
    while opener != -1:
        start = opener + len(CALL_OPEN)
        nxt = low.find(CALL_OPEN, start)
        close = low.find(CALL_CLOSE, start)
        end = min(x for x in (close, nxt, len(content)) if x != -1)
        out += [content[pos:start], _shield(content[start:end], lt)]
        pos, opener = end, nxt
    return "".join(out) + content[pos:]


def parse_tool_calls(content: str) -> ParseResult:
    """All `<tool_call>` blocks outside reasoning, in order. Never raises."""
    try:
        content = content or ""
        lt = _sentinel(content)
        visible = strip_reasoning(_shield_calls(content, lt))
        calls: list[ParsedCall] = []
        errors: list[str] = []
        for i, shielded in enumerate(call_blocks(visible), 1):
            block = shielded.replace(lt, "<")  # back to the model's own text before decoding
            try:
                calls.append(normalise_call(loads_tolerant(block), block.strip()))
            except (ValueError, RecursionError) as e:
                errors.append(f"tool call {i}: {e}")
        return ParseResult(calls, errors)
    except Exception as e:  # pragma: no cover - defensive: the loop must never die here
        return ParseResult([], [f"tool call could not be parsed: {type(e).__name__}"])
