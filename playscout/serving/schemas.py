"""API bodies. Unknown fields are errors, so a client's typo is not silently ignored. The bodies
of `POST /v1/ask` and `POST /v1/runs` are the use cases' requests (`usecases.AskRequest`,
`usecases.RunRequest`)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class ClipEvidence(BaseModel):
    clip_id: str
    game_id: str | None = None
    period: int | None = None
    video_start: float | None = None
    video_end: float | None = None
    clock_remaining_start: float | None = None
    clock_remaining_end: float | None = None
    found: bool = True


class DocumentEvidence(BaseModel):
    doc_id: str
    doc_type: str | None = None
    game_id: str | None = None
    date: str | None = None
    found: bool = True


class Evidence(BaseModel):
    documents: list[DocumentEvidence] = Field(default_factory=list)
    clips: list[ClipEvidence] = Field(default_factory=list)
    qa: list[str] = Field(default_factory=list)


class TokenUsage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0


class AskResponse(BaseModel):
    trajectory_id: str
    run_id: str
    question: str
    sport: str
    mode: str
    policy: str
    status: str
    answer: str | None
    confidence: float | None = Field(None, description="The QA tool's confidence, when known.")
    evidence: Evidence
    turns: int
    wall_s: float
    usage: TokenUsage = Field(
        default_factory=TokenUsage, description="Tokens of the agent's model calls, summed."
    )
    note: str | None = None


class TrajectoryListItem(BaseModel):
    id: str
    question: str | None
    status: str | None
    answer: str | None
    turns: int
    created: float | None
    policy: str | None = None
    sport: str | None = None
    mode: str | None = None
    tool_calls: dict[str, int] = Field(default_factory=dict)
    error: str | None = Field(None, description="Why it did not answer (or why unreadable).")


class TrajectoryDetail(BaseModel):
    id: str
    summary: dict[str, Any]
    annotations: dict[str, Any] = Field(
        default_factory=dict, description="gold_answer / verdict when the writer recorded them."
    )
    events: list[dict[str, Any]]


class ErrorObject(BaseModel):
    message: str = Field(description="One line: what went wrong and what to do.")
    type: str = Field(description="invalid_request_error, rate_limit_error, model_error, ...")
    code: str = Field(description="Machine-readable cause: unknown_sport, model_timeout, ...")
    param: str | None = Field(None, description="The request field at fault, when one is.")


class ErrorBody(BaseModel):
    """Every error response, the native stream's `error` event and a chat stream's error chunk
    (the OpenAI error shape)."""

    error: ErrorObject
