"""What the SVI-Bench T1-T9 release files share: where the formats are written down (`SVI`),
the sport a file or video path names, the LLaVA conversation form of T5 and T8 items, and a
multiple-choice question whose options are written in its text. Each task's parser and record
model are in its module (tasks/t1.py ... t9.py); the fields each item keeps are what its
protocol needs, and `meta["video_refs"]` are paths as written (tasks/media.py resolves them to
files)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from playscout.corpus.sports import sport_names
from playscout.eval.errors import DataFormatError
from playscout.eval.tasks.options import options_in
from playscout.eval.tasks.reading import LETTERS, NonEmpty, Record, Text, option_letter

SVI = "Texaser/SVI-Bench svi_bench/tasks"

MCQ_SUFFIX = "Answer with the option's letter from the given choices directly."


def sport_of(*texts: str) -> str:
    """The sport a file or video path names (`basketball_qa_val_10k.json`,
    `basketball/val/1.mp4`); "unknown" when none does."""
    names = "|".join(map(re.escape, sport_names()))
    for text in texts:
        m = re.search(rf"({names})", text.lower())
        if m:
            return m.group(1)
    return "unknown"


def strip_media_tag(text: str) -> str:
    return re.sub(r"^\s*<(video|image)>\s*", "", text).strip()


def mcq(path: Path, where: str, question: str, answer: str) -> tuple[list[str], int]:
    """The options written in `question` and the index of `answer`'s letter among them."""
    options = options_in(question)
    if len(options) < 2:
        raise DataFormatError(f"{path.name}: {where}: no options 'A: ...' found in the question")
    gold = LETTERS.index(answer.strip()[0].upper())
    if gold >= len(options):
        raise DataFormatError(
            f"{path.name}: {where}: answer {answer.strip()[0]} but the question has "
            f"{len(options)} options"
        )
    return options, gold


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
        option_letter(self.answer)
        return self

    @property
    def question(self) -> str:
        return next(t.value for t in self.conversations if t.speaker == "human")

    @property
    def answer(self) -> str:
        return next(t.value for t in self.conversations if t.speaker == "gpt")
