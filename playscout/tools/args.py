"""The base of every tool's argument model, importing only pydantic (the CLI reads argument
models at start-up)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class ToolArgs(BaseModel):
    """Arguments of a tool. Unknown arguments are errors so a model learns the right names."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


def one_or_many(value: Any) -> Any:
    """A `mode="before"` validator for id lists: models often write one id where a list is
    expected, and one id is taken as a list of one."""
    if isinstance(value, (str, int)) and value != "":
        return [str(value)]
    return value
