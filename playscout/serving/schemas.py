"""API bodies. Unknown fields are errors, so a client's typo is not silently ignored."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from playscout.agent.ids import ID_PATTERN
from playscout.agent.question import visible_question
from playscout.config import DEFAULT_MODE, DEFAULT_POLICY, Mode, Policy

Question = Annotated[
    str,
    Field(min_length=1, description="The question (max length: a setting)."),
    AfterValidator(visible_question),  # zero-width spaces only are as empty as ""
]


class AskBody(BaseModel):
    """The body of `/v1/ask` and `/v1/ask/stream`: what it leaves out, the server's defaults
    choose (serving/choices.py)."""

    model_config = ConfigDict(extra="forbid")

    question: Question
    sport: str | None = Field(
        None, description="A sport present in the index [default: the server's, `serve --sport`]."
    )
    mode: Mode | None = Field(None, description="[default: the server's, `serve --mode`]")
    policy: Policy | None = Field(
        None,
        description="llm (needs a configured agent model) or workflow (offline baseline) "
        "[default: the server's, `serve --policy`].",
    )
    session_id: str | None = Field(
        None, pattern=ID_PATTERN, description="Continue an earlier conversation (llm policy)."
    )


class AskRequest(BaseModel):
    """An ask with its choices made (the body with the server's defaults filled in)."""

    model_config = ConfigDict(extra="forbid")

    question: Question
    sport: str = Field("basketball", description="A sport present in the index.")
    mode: Mode = DEFAULT_MODE
    policy: Policy = Field(
        DEFAULT_POLICY,
        description="llm (needs a configured agent model) or workflow (offline baseline).",
    )
    session_id: str | None = Field(
        None, pattern=ID_PATTERN, description="Continue an earlier conversation (llm policy)."
    )


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
