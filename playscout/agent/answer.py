"""Final-answer extraction: the LAST `<answer>` outside reasoning and outside tool calls.

The reference took the first match over raw content including `<think>`, and stopped on the
fallback phrase even without tags (defect 10). Here the phrase counts only inside `<answer>`.
"""

from __future__ import annotations

import re
from typing import Literal, NamedTuple

from playscout.clients.reasoning import strip_reasoning

FALLBACK_ANSWER = "I cannot find the answer in the provided documents or videos."
_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.S | re.I)
_OPEN_ANSWER = re.compile(r"<answer>(.*)\Z", re.S | re.I)
_CALL = re.compile(r"<tool_call>.*?(?:</tool_call>|\Z)", re.S | re.I)

AnswerKind = Literal["answer", "fallback", "none"]


class Extracted(NamedTuple):
    answer: str | None
    kind: AnswerKind


def _norm(text: str) -> str:
    return " ".join(text.split()).rstrip(".").lower()


def is_fallback(answer: str) -> bool:
    """The fallback sentence, alone or with more text run on after it (small models go on:
    "... or videos. I am forbidden to ..."): either way the model said it found nothing."""
    return _norm(answer).startswith(_norm(FALLBACK_ANSWER))


def extract_answer(content: str, truncated: bool = False) -> Extracted:
    """The last closed `<answer>` block of the visible text. An unclosed one at the very end
    counts only when the reply was cut by max_tokens (`truncated`): otherwise a model merely
    mentioning the tag ("... nor an <answer> tag.") would be taken as answering."""
    visible = _CALL.sub(" ", strip_reasoning(content or ""))
    found = _ANSWER.findall(visible)
    if found:
        text = found[-1].strip()
    elif not truncated:
        return Extracted(None, "none")
    else:
        tail = _OPEN_ANSWER.search(visible)
        if tail is None:
            return Extracted(None, "none")
        text = tail.group(1).strip()
    if not text:
        return Extracted(None, "none")
    return Extracted(text, "fallback" if is_fallback(text) else "answer")
