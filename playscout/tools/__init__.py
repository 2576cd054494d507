"""The agent's tools. Tools read indices through the backend interface; they never import
the agent, serving or eval layers."""

from playscout.tools.entities import EntityResolver, Resolution
from playscout.tools.registry import ALL_TOOLS, QA_TOOLS, SEARCH_TOOLS, call_tool
from playscout.tools.search import (
    SearchDocumentsArgs,
    SearchVideosArgs,
    search_documents,
    search_videos,
)
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
