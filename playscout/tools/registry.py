"""Tool lookup and invocation: the single place where raw model arguments become typed calls,
and every failure becomes an `Error: ...` observation instead of an exception."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson
from pydantic import ValidationError

from playscout.tools.base import ToolArgs, ToolContext, ToolError, ToolResult, function_schema
from playscout.tools.search import (
    SearchDocumentsArgs,
    SearchVideosArgs,
    search_documents,
    search_videos,
)


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    args: type[ToolArgs]
    run: Callable[[ToolContext, Any], ToolResult]

    def schema(self) -> dict[str, Any]:
        return function_schema(self.name, self.description, self.args)


SEARCH_TOOLS: tuple[Tool, ...] = (
    Tool(
        "search_documents",
        "Hybrid (BM25 + dense) search over game reports, game statistics and season statistics. "
        "Returns the top 20 documents with doc ids and highlighted snippets.",
        SearchDocumentsArgs,
        search_documents,
    ),
    Tool(
        "search_videos",
        "Search video clips (10-15 s each) by what happens in them, with game, quarter/period, "
        "team, player and time filters. Returns up to 100 clip ids with timestamps.",
        SearchVideosArgs,
        search_videos,
    ),
)


def _validation_message(err: ValidationError) -> str:
    first = err.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "arguments"
    more = f" (+{err.error_count() - 1} more)" if err.error_count() > 1 else ""
    return f"invalid argument {where}: {first['msg']}{more}"


def call_tool(tools: dict[str, Tool], ctx: ToolContext, name: str, raw: Any) -> ToolResult:
    tool = tools.get(name)
    if tool is None:
        return ToolResult.failure(name, f"unknown tool {name!r}; available: {', '.join(tools)}")
    if isinstance(raw, (str, bytes)):
        try:
            raw = orjson.loads(raw) if raw.strip() else {}
        except orjson.JSONDecodeError:
            return ToolResult.failure(name, "arguments are not valid JSON")
    if not isinstance(raw, dict):
        return ToolResult.failure(name, "arguments must be a JSON object")
    try:
        args = tool.args.model_validate(raw)
        return tool.run(ctx, args)
    except ValidationError as e:
        return ToolResult.failure(name, _validation_message(e))
    except ToolError as e:
        return ToolResult.failure(name, str(e))
