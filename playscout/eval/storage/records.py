"""One line of a run's results.jsonl, typed: what a task's route produced (`Outcome`) and the
question it answered (`ResultRow`, the outcome plus the runner's fields).

The file stays the JSON it always was: a row holds only the keys its route set (plus the
runner's), written with `to_record`, so a T9 row never grows T3's `rank: null` and run
directories written before these types existed load unchanged. Routes build `Outcome`s, which
refuse unknown fields, so a typo cannot slip into the results; reading (`ResultRow`) keeps any
field it does not know, so a row from another version still loads and judges.
"""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field

from playscout.agent.trajectory import ForcedFinal, Status
from playscout.eval.errors import ErrorKind

RowStatus = Status | Literal["missing_input"]
"""An agent run's status, or `missing_input`: the item could not be asked as its protocol says
(absent video, game not in the corpus), so it was not asked at all (eval/errors.MissingInput)."""


class Outcome(BaseModel):
    """What a route returns. The common fields come from `run_agent`/`direct_call` (or the
    runner, when the route raised); the task fields from the task's own scoring of the answer,
    and only the tasks named beside them set them."""

    model_config = ConfigDict(extra="forbid")

    answer: str | None = None  # never the fallback phrase (that is `raw_answer`)
    raw_answer: str | None = None
    status: RowStatus
    forced_final: ForcedFinal | None = None
    turns: int = 0
    tool_calls: dict[str, int] = Field(default_factory=dict)
    valid_tool_calls: int | None = None  # calls a tool ran without an error observation
    prompt_tokens: int = 0
    completion_tokens: int = 0
    errors: int = 0  # error events in the trajectory
    error: str | None = None
    traceback: str | None = None  # the route raised (status "error")
    error_kind: ErrorKind | None = None  # an error a plain resume runs again
    evidence: dict[str, list[str]] = Field(default_factory=dict)
    note: str | None = None
    observation_errors: list[str] = Field(default_factory=list)
    wall_s: float = 0.0
    # task fields
    scores: dict[str, float] | None = None  # t1: 0-5 per axis
    turn_scores: list[float | None] | None = None  # starbench: rubric score per turn
    score: float | None = None  # t1, t4 (0-5), starbench
    choice: int | None = None  # MCQs (t2, t5, t8, gameplayqa): the option index picked
    confidence: float | None = None  # t5: verbalised confidence
    option_probs: list[float] | None = None  # t5: probability per option, for calibration
    pred: bool | int | float | None = None  # lcric: yes/no, a count, or a total
    correct: bool | None = None  # MCQs and lcric
    chosen_kind: str | None = None  # gameplayqa: the distractor type chosen
    rank: int | None = None  # t3: rank of the positive clip in the pool
    pool_size: int | None = None  # t3
    facts: dict[str, int] | None = None  # t6: supported / contradicted / inconclusive
    factual: float | None = None  # t6
    saliency: float | None = None  # t6
    style: float | None = None  # t6: 1-5
    miou: float | None = None  # t7
    route: str | None = None  # published items: how the item was asked (t4: per question type)
    candidates: list[str] | None = None  # t4: the k answers of one response, best-of-k
    candidate_scores: list[float | None] | None = None  # t4: the rubric judge's 0-5 for each
    criteria: list[list[bool | None]] | None = None  # starbench: per turn, per rubric criterion
    judge: str | None = None  # t4, t6, starbench: which judge scored the row (model or fallback)

    def updated(self, **changes: Any) -> Self:
        """A copy with `changes` set and validated (`model_copy` would not check them)."""
        return self.model_validate({**self.model_dump(exclude_unset=True), **changes})


class QuestionFields(BaseModel):
    """The runner's fields: which question, which attempt, where its trajectory is."""

    qid: str
    sport: str
    question: str
    gold: Any  # whatever the task's metric needs: text, an option index, facts, turns
    meta: dict[str, Any] = Field(default_factory=dict)
    attempt: int = 1
    trajectory: str  # relative to the run directory
    judgeable: bool = True  # answers go through the judge step (T9-style tasks)
    fingerprint: str | None = None  # of text, gold and evidence (eval/running/fingerprint.py)


class ResultRow(Outcome, QuestionFields):
    """A results.jsonl line. Field order (question first) is the order keys are written in."""

    model_config = ConfigDict(extra="allow")

    @classmethod
    def of(cls, question: QuestionFields, outcome: Outcome) -> ResultRow:
        """The row for `question`: its answer stays None unless the route gave one."""
        fields = question.model_dump(include=set(QuestionFields.model_fields))
        if fields["fingerprint"] is None:  # rows from before fingerprints stay as they were
            del fields["fingerprint"]
        return cls.model_validate(
            {**fields, "answer": None, **outcome.model_dump(exclude_unset=True)}
        )

    def to_record(self) -> dict[str, Any]:
        """The keys that were set, as before: what results.jsonl holds for this row."""
        return self.model_dump(exclude_unset=True)
