"""The published record formats, typed. Required fields are the ones a task's protocol needs;
anything else an item carries is kept (extra="allow") and lands in the item's `meta`.

Where each format comes from is in formats.py (and `playscout eval tasks`): the SVI-Bench task
READMEs and evaluation scripts, GameplayQA's `gameplayqa/data.py` and its authors' question
generator, and, for STARBench and LCric, whose files are not public, the papers."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator

LETTERS = "ABCDEFGHIJ"


def _text(v: Any) -> Any:
    """Ids are numbers in some files and strings in others: both read as text."""
    return str(v) if isinstance(v, int) and not isinstance(v, bool) else v


Text = Annotated[str, BeforeValidator(_text)]
NonEmpty = Annotated[str, Field(min_length=1)]


class Record(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    def extra(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


def _letter(v: str) -> str:
    m = re.match(r"\s*\(?([A-J])\b", v)
    if not m:
        raise ValueError(f"answer {v!r} is not an option letter A-J")
    return m.group(1)


# ---------------------------------------------------------------- SVI-Bench T1-T9


class T1Caption(Record):
    """T1/captions/<sport>_caption_<split>.json item."""

    video: NonEmpty
    data_source: Text
    caption: NonEmpty


class T2Question(Record):
    """T2/data/<sport>_qa_<split>.json item; options are "A: Guard"."""

    id: Text
    video: NonEmpty
    question: NonEmpty
    options: list[str] = Field(min_length=2)
    answer: str
    question_type: str | None = None

    _letter = field_validator("answer")(_letter)

    @model_validator(mode="after")
    def _answer_is_an_option(self) -> T2Question:
        if LETTERS.index(self.answer) >= len(self.options):
            raise ValueError(f"answer {self.answer} but only {len(self.options)} options")
        return self


class T3Entry(Record):
    """T3/data/<split>/<sport>_<split>.json entry (t9-reference §8)."""

    video: str | None = None
    image: str | None = None
    caption: NonEmpty
    is_positive: bool
    hn_bin: str | None = None

    @model_validator(mode="after")
    def _has_media(self) -> T3Entry:
        if not (self.video or self.image):
            raise ValueError("needs a video (or image) path")
        return self


class T4Question(Record):
    """T4 dataset/qa.json item (1,000 in the release)."""

    league: NonEmpty
    game_id: Text
    question_type: NonEmpty
    question: NonEmpty
    answer: NonEmpty
    video_path: NonEmpty


class Turn(BaseModel):
    """A LLaVA conversation turn."""

    model_config = ConfigDict(populate_by_name=True)

    speaker: Literal["human", "gpt"] = Field(alias="from")
    value: str


class Conversation(Record):
    """LLaVA conversation form (T5, T8): one human turn with the question, one gpt turn with
    the answer letter."""

    id: Text
    video: NonEmpty
    conversations: list[Turn] = Field(min_length=2)

    @model_validator(mode="after")
    def _one_question_one_answer(self) -> Conversation:
        speakers = [t.speaker for t in self.conversations]
        if speakers.count("human") != 1 or speakers.count("gpt") != 1:
            raise ValueError("needs one human turn (the question) and one gpt turn (the answer)")
        _letter(self.answer)
        return self

    @property
    def question(self) -> str:
        return next(t.value for t in self.conversations if t.speaker == "human")

    @property
    def answer(self) -> str:
        return next(t.value for t in self.conversations if t.speaker == "gpt")


class BoxModel(BaseModel):
    x1: float
    y1: float
    x2: float
    y2: float

    @model_validator(mode="before")
    @classmethod
    def _from_list(cls, v: Any) -> Any:
        if isinstance(v, (list, tuple)) and len(v) == 4:
            return dict(zip(("x1", "y1", "x2", "y2"), v, strict=True))
        return v

    @model_validator(mode="after")
    def _normalised(self) -> BoxModel:
        if not (0 <= self.x1 < self.x2 <= 1 and 0 <= self.y1 < self.y2 <= 1):
            raise ValueError("needs 0 <= x1 < x2 <= 1 and 0 <= y1 < y2 <= 1 (normalised)")
        return self

    def tuple(self) -> tuple[float, float, float, float]:
        return (self.x1, self.y1, self.x2, self.y2)


class T8Question(Conversation):
    """T8 qa_test/Q*.json item: the goal-accuracy MCQ about the (generated) clip, with the
    target player's start box, which the evaluator sees drawn in red on frame 0."""

    start_bbox: BoxModel
    jersey_number: Text | None = None
    normalized_action: str | None = None


class T8PlayerSpec(BaseModel):
    jersey_number: Text
    start_bbox: BoxModel
    end_bbox: BoxModel
    action: str


class T8Caption(BaseModel):
    """T8 captions.json value: a generation instruction (no question in it)."""

    refined_instruction: str
    player_specifications: list[T8PlayerSpec]


# ---------------------------------------------------------------- GameplayQA

GAMEPLAYQA_COLUMNS = ("id", "question", "correct_option", "question_code", "video_1_file_name")


class GameplayQARow(Record):
    """A qa.csv row (HATS-ICT/GameplayQA gameplayqa/data.py, questions.py)."""

    id: NonEmpty
    question: NonEmpty
    correct_option: NonEmpty
    question_code: NonEmpty
    video_1_file_name: NonEmpty

    def distractors(self) -> list[tuple[str, str]]:
        """(option, type) for distractor_1..3 that are present, as the reference reads them."""
        out = []
        for i in range(1, 4):
            text = str(self.extra().get(f"distractor_{i}") or "").strip()
            if text:
                kind = str(self.extra().get(f"distractor_{i}_type") or "").strip() or "unknown"
                out.append((text, kind))
        return out

    def videos(self) -> list[str]:
        names = [self.video_1_file_name.strip()]
        names += [str(self.extra().get(f"video_{i}_file_name") or "").strip() for i in range(2, 6)]
        return [n for n in names if n]


class Span(BaseModel):
    start: float = Field(ge=0)
    end: float = Field(ge=0)

    @model_validator(mode="after")
    def _ordered(self) -> Span:
        if self.end < self.start:
            raise ValueError("end before start")
        return self


class GeneratorOption(BaseModel):
    option: NonEmpty
    start: float | None = None
    end: float | None = None


class GeneratorDistractor(GeneratorOption):
    type: NonEmpty


class GeneratorQuestion(Record):
    """A question of the authors' generator export (sync-video-label, GeneratedQuestion)."""

    id: NonEmpty
    level: int
    code: NonEmpty
    question: NonEmpty
    answer: GeneratorOption
    distractors: list[GeneratorDistractor] = Field(min_length=1)
    videoIndex: int | None = None
    videoIndices: list[int] | None = None
    videoContext: Span | None = None

    @model_validator(mode="after")
    def _has_videos(self) -> GeneratorQuestion:
        if self.videoIndex is None and not self.videoIndices:
            raise ValueError("needs videoIndex or videoIndices")
        return self


class GeneratorExport(Record):
    """The generator's export file: {instanceId, instanceName, generatedAt, stats, questions}."""

    instanceId: NonEmpty
    questions: list[GeneratorQuestion] = Field(min_length=1)
    projectFolder: str | None = None


class ProjectInstance(BaseModel):
    id: str
    videos: list[str]


class ProjectFile(BaseModel):
    """The generator's project file: which videos (in order) each instance has."""

    instances: list[ProjectInstance]


# ---------------------------------------------------------------- STARBench, LCric (from the papers)

PRIORITY_WEIGHTS = {"high_priority": 5.0, "medium_priority": 3.0, "low_priority": 1.0}
PENALTY_WEIGHT = 5.0  # the App. B.5 prompt gives penalties "negative weights" without a size


class Criterion(BaseModel):
    """A rubric criterion as STARBench App. B.5 writes them."""

    name: NonEmpty
    description: NonEmpty
    category: Literal["high_priority", "medium_priority", "low_priority", "penalty"]
    is_penalty: bool
    weight: float | None = Field(None, gt=0)

    @model_validator(mode="after")
    def _penalty_consistent(self) -> Criterion:
        if self.is_penalty != (self.category == "penalty"):
            raise ValueError("is_penalty must be true exactly when category is 'penalty'")
        return self

    def resolved_weight(self) -> float:
        if self.weight is not None:
            return self.weight
        return PENALTY_WEIGHT if self.is_penalty else PRIORITY_WEIGHTS[self.category]


class StarbenchTurn(BaseModel):
    question: NonEmpty
    answer: NonEmpty  # the ideal answer, which becomes the next turn's history
    rubric: list[Criterion] = Field(min_length=1)


class StarbenchItem(Record):
    """A STARBench item: the paper's question, answer and rubric JSON for one single- or
    multi-turn question set, with its video."""

    id: Text
    video: NonEmpty
    turns: list[StarbenchTurn] = Field(min_length=1)
    task: str | None = None


class LcricQuery(Record):
    """An LCric query over a clip (seed 004 §4.3): binary, multiple choice (a count 0-9) or
    regression (total runs)."""

    id: Text
    video: NonEmpty
    kind: Literal["binary", "multiple", "regression"]
    query: NonEmpty
    answer: bool | int | float | str

    @model_validator(mode="after")
    def _answer_fits_kind(self) -> LcricQuery:
        a = self.answer
        if self.kind == "binary" and not (
            isinstance(a, bool) or str(a).strip().lower() in ("true", "false", "yes", "no")
        ):
            raise ValueError(f"binary answer {a!r} is not yes/no/true/false")
        if self.kind != "binary":
            try:
                value = float(a)
            except (TypeError, ValueError):
                raise ValueError(f"{self.kind} answer {a!r} is not a number") from None
            if self.kind == "multiple" and not (value.is_integer() and 0 <= value <= 9):
                raise ValueError(f"multiple-choice answer {a!r} is not a count 0-9")
        return self
