"""The base of every tool's argument model, importing only pydantic (the CLI reads argument
models at start-up)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class ToolArgs(BaseModel):
    """Arguments of a tool. Unknown arguments are errors so a model learns the right names."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
