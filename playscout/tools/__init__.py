"""The agent's tools. Tools read indices through the backend interface; they never import
the agent, serving or eval layers.

Names load on first use, so a light submodule (`playscout.tools.roles`, which the CLI reads at
start-up) does not import the registry and, through it, every tool."""

from __future__ import annotations

from typing import TYPE_CHECKING

from playscout._lazy import lazy_exports

if TYPE_CHECKING:
    from playscout.tools.entities import EntityResolver, Resolution
    from playscout.tools.registry import ALL_TOOLS, QA_TOOLS, SEARCH_TOOLS, call_tool
    from playscout.tools.search import search_documents, search_videos
    from playscout.tools.search_args import SearchDocumentsArgs, SearchVideosArgs
    from playscout.tools.tool import (
        Mode,
        ModelSet,
        Tool,
        ToolArgs,
        ToolContext,
        ToolError,
        ToolResult,
        function_schema,
    )

_WHERE = {
    "EntityResolver": "entities",
    "Resolution": "entities",
    "ALL_TOOLS": "registry",
    "QA_TOOLS": "registry",
    "SEARCH_TOOLS": "registry",
    "call_tool": "registry",
    "SearchDocumentsArgs": "search_args",
    "SearchVideosArgs": "search_args",
    "search_documents": "search",
    "search_videos": "search",
    **dict.fromkeys(
        ("Mode", "ModelSet", "Tool", "ToolArgs", "ToolContext", "ToolError", "ToolResult"), "tool"
    ),
    "function_schema": "tool",
}

__all__ = [
    "ALL_TOOLS",
    "QA_TOOLS",
    "SEARCH_TOOLS",
    "EntityResolver",
    "Mode",
    "ModelSet",
    "Resolution",
    "SearchDocumentsArgs",
    "SearchVideosArgs",
    "Tool",
    "ToolArgs",
    "ToolContext",
    "ToolError",
    "ToolResult",
    "call_tool",
    "function_schema",
    "search_documents",
    "search_videos",
]


__getattr__ = lazy_exports(
    __name__, {name: f"{__name__}.{module}" for name, module in _WHERE.items()}, globals()
)
