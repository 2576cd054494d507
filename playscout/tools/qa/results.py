"""What a QA call answers: one item per id, and the compact observation the model reads."""

from __future__ import annotations

from pydantic import BaseModel, Field

from playscout.clients.calls import CallRecord
from playscout.clients.chat import Usage
from playscout.config import Mode

# Longest answer / evidence shown in an observation; the typed data keeps everything.
_ANSWER_CHARS = 600
_EVIDENCE_CHARS = 400


class SentFrames(BaseModel):
    """Which frames a VLM was sent, by reference (never the pixels): their times in the clip
    file and the JPEG settings, enough to show them again (media.timed_frames.jpeg_at)."""

    times: list[float]
    long_side: int
    quality: int


class QAItem(BaseModel):
    """The answer about one id, or why there is none."""

    id: str
    answer: str | None = None
    confidence: float | None = None
    evidence: str | None = None
    parsed: bool | None = None  # False: answer is the model's raw text
    error: str | None = None
    notes: list[str] = Field(default_factory=list)
    latency_s: float | None = None
    usage: Usage | None = None
    finish_reason: str | None = None
    frames: SentFrames | None = None  # video_qa in default mode
    call: CallRecord | None = None  # the model call that answered (none: extractive reader)


class QAResult(BaseModel):
    tool: str
    query: str
    mode: Mode
    source: str  # "model <name>" or "extractive reader"
    items: list[QAItem]
    notes: list[str] = Field(default_factory=list)
    latency_s: float = 0.0
    usage: Usage = Field(default_factory=Usage)


def _cut(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit] + " ...(truncated)"


def render_qa(result: QAResult) -> str:
    kind = "documents" if result.tool == "document_qa" else "clips"
    lines = [
        f'{result.tool} over {len(result.items)} {kind} via {result.source} | "{result.query}"'
    ]
    lines += [f"note: {n}" for n in result.notes]
    for item in result.items:
        if item.error:
            lines.append(f"{item.id}: error: {item.error}")
            continue
        conf = "null" if item.confidence is None else f"{item.confidence:g}"
        line = f"{item.id}: answer={_cut(item.answer or '', _ANSWER_CHARS)} (confidence {conf})"
        if item.evidence:
            line += f" evidence: {_cut(item.evidence, _EVIDENCE_CHARS)}"
        if item.notes:
            line += " | note: " + "; ".join(item.notes)
        lines.append(line)
    return "\n".join(lines)
