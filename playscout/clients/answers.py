"""Parse a model's JSON answer {answer, confidence, evidence} out of free text.

Models wrap JSON in reasoning, tags and fences. The reference took the first match over raw
content including reasoning and invented confidence 0.5 on failure (defects 3, 10); here
reasoning is dropped first, the last answer wins, and a failure keeps the raw text with no
confidence at all.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel

from playscout.clients.reasoning import strip_reasoning as strip_reasoning  # one definition

UNPARSEABLE = "model returned unparseable output"

_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)
_DECODER = json.JSONDecoder()


class ParsedAnswer(BaseModel):
    answer: str
    confidence: float | None = None
    evidence: str | None = None
    parsed: bool = True  # False: `answer` is the cleaned raw text


def _answer_region(text: str) -> str:
    """Text inside the last <answer> tags (or after an unclosed last one), else all of it."""
    closed = _ANSWER.findall(text)
    lower = text.lower()
    last_open = lower.rfind("<answer>")
    if last_open >= 0 and lower.find("</answer>", last_open) < 0:
        return text[last_open + len("<answer>") :].strip()
    if closed:
        return str(closed[-1]).strip()
    return text


def _objects(text: str) -> list[dict[str, Any]]:
    """Top-level JSON objects in order of appearance, skipping braces that start none."""
    found: list[dict[str, Any]] = []
    i = text.find("{")
    while i >= 0:
        try:
            value, end = _DECODER.raw_decode(text, i)
        except ValueError:
            i = text.find("{", i + 1)
            continue
        if isinstance(value, dict):
            found.append(value)
        i = text.find("{", end)
    return found


def _pick(objects: list[dict[str, Any]]) -> dict[str, Any] | None:
    for obj in reversed(objects):
        if any(str(k).lower() == "answer" for k in obj):
            return {str(k).lower(): v for k, v in obj.items()}
    return None


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        return "; ".join(_as_text(v) for v in value)
    return json.dumps(value, ensure_ascii=False)


def parse_confidence(value: Any) -> float | None:
    """0.9, "0.9", "90%", 90 -> 0.9; words like "high" -> None (never a made-up number)."""
    if isinstance(value, bool) or value is None:
        return None
    number: float
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str):
        m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*(%?)\s*", value)
        if not m:
            return None
        number = float(m.group(1)) / (100.0 if m.group(2) else 1.0)
    else:
        return None
    if 1.0 < number <= 100.0:
        number /= 100.0
    if not 0.0 <= number <= 1.0 or number != number:
        return None
    return round(number, 4)


def parse_answer(text: str | None) -> ParsedAnswer:
    """Never raises. Order: strip reasoning, <answer> region, last ```json fence, last object."""
    cleaned = strip_reasoning(text or "")
    region = _answer_region(cleaned)
    candidates = []
    fences = _FENCE.findall(region)
    if fences:
        candidates.append(str(fences[-1]))
    candidates.append(region)
    for candidate in candidates:
        picked = _pick(_objects(candidate))
        if picked is not None:
            evidence = _as_text(picked.get("evidence")) or None
            return ParsedAnswer(
                answer=_as_text(picked.get("answer")),
                confidence=parse_confidence(picked.get("confidence")),
                evidence=evidence,
            )
    raw = region.strip()
    if region is not cleaned and raw:
        # <answer>plain words</answer> is a real answer, just without JSON around it.
        return ParsedAnswer(answer=raw, parsed=False)
    return ParsedAnswer(answer=cleaned, parsed=False)
