"""The QA tools' arguments (paper Fig. 46): ids and one question."""

from __future__ import annotations

from pydantic import AliasChoices, Field, field_validator

from playscout.tools.args import one_or_many
from playscout.tools.tool import ToolArgs


class DocumentQAArgs(ToolArgs):
    doc_ids: list[str] = Field(
        ..., description="Document ids from search_documents results, most relevant first."
    )
    query: str = Field(..., description="One question, asked of each document separately.")

    _lists = field_validator("doc_ids", mode="before")(one_or_many)


class VideoQAArgs(ToolArgs):
    video_ids: list[str] = Field(
        ...,
        validation_alias=AliasChoices("video_ids", "clip_ids"),
        description="Clip ids from search_videos results, most relevant first.",
    )
    query: str = Field(..., description="One question, asked of each clip separately.")

    _lists = field_validator("video_ids", mode="before")(one_or_many)
