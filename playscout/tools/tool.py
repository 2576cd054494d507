"""What every agent tool shares: typed arguments, a context, and a two-sided result (compact
text for the model, a typed object for programs).

Tool JSON schemas are generated from the argument models, never written by hand.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

from playscout.clients.chat import ChatClient
from playscout.config import DEFAULT_MODE, Mode, PerceptionSettings, QASettings, SearchSettings
from playscout.corpus.loader import Corpus
from playscout.search.backend_api import SearchBackend
from playscout.tools.entities import EntityResolver
from playscout.tools.errors import ToolError as ToolError  # re-exported: tools raise it
from playscout.tools.session_memory import SessionMemory


class ToolArgs(BaseModel):
    """Arguments of a tool. Unknown arguments are errors so a model learns the right names."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class ToolResult(BaseModel):
    tool: str
    observation: str
    data: Any = None
    notes: list[str] = []
    error: str | None = None

    @classmethod
    def failure(cls, tool: str, message: str) -> ToolResult:
        return cls(tool=tool, observation=f"Error: {message}", error=message)


@dataclass
class ModelSet:
    """Clients behind the QA tools; None = not configured (the tool then says what it did)."""

    document_llm: ChatClient | None = None
    vlm: ChatClient | None = None
    caption_llm: ChatClient | None = None


@dataclass
class ToolContext:
    """Everything a tool call may touch. No globals: one per agent run (or shared, read-only)."""

    backend: SearchBackend
    sport: str
    mode: Mode = DEFAULT_MODE
    search: SearchSettings = field(default_factory=SearchSettings)
    qa: QASettings = field(default_factory=QASettings)
    corpus: Corpus | None = None  # media (clip files) for video_qa and perception tools
    models: ModelSet = field(default_factory=lambda: ModelSet())
    perception: PerceptionSettings = field(default_factory=PerceptionSettings)
    memory: SessionMemory = field(default_factory=SessionMemory)  # one per run: never share

    @functools.cached_property
    def resolver(self) -> EntityResolver:
        teams, players = self.backend.entities(self.sport)
        return EntityResolver(self.sport, teams, players, self.search.fuzzy_cutoff)


def function_schema(name: str, description: str, args: type[ToolArgs]) -> dict[str, Any]:
    """OpenAI function-calling schema generated from the argument model (a fresh copy: callers
    may change it; the generation itself runs once per tool and process)."""
    return json.loads(_schema_json(name, description, args))


@functools.cache
def _schema_json(name: str, description: str, args: type[ToolArgs]) -> str:
    params = args.model_json_schema()
    params.pop("title", None)
    for prop in params.get("properties", {}).values():
        prop.pop("title", None)
    return json.dumps(
        {
            "type": "function",
            "function": {"name": name, "description": description, "parameters": params},
        }
    )


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    args: type[ToolArgs]
    run: Callable[[ToolContext, Any], ToolResult]

    def schema(self) -> dict[str, Any]:
        return function_schema(self.name, self.description, self.args)
