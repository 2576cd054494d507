"""Tool lookup and invocation: the single place where raw model arguments become typed calls,
and every failure becomes an `Error: ...` observation instead of an exception."""

from __future__ import annotations

import logging
from typing import Any

import orjson
from pydantic import ValidationError

from playscout.errors import is_user_error
from playscout.tools.perception import PERCEPTION_TOOLS
from playscout.tools.qa import (
    DocumentQAArgs,
    VideoQAArgs,
    document_qa,
    video_qa,
    video_qa_oracle,
)
from playscout.tools.search import (
    SearchDocumentsArgs,
    SearchVideosArgs,
    search_documents,
    search_videos,
)
from playscout.tools.tool import Tool, ToolContext, ToolResult
from playscout.tools.utility import UTILITY_TOOLS

log = logging.getLogger(__name__)


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

QA_TOOLS: tuple[Tool, ...] = (
    Tool(
        "document_qa",
        "Ask one question of each listed document (full text, read by a language model). "
        "Returns per document an answer, a confidence and the supporting evidence.",
        DocumentQAArgs,
        document_qa,
    ),
    Tool(
        "video_qa",
        "Ask one question of each listed video clip (16 frames per clip, read by a vision "
        "model). Returns per clip an answer, a confidence and the visual evidence.",
        VideoQAArgs,
        video_qa,
    ),
)

VIDEO_QA_ORACLE = Tool(
    "video_qa_oracle",
    "Ask one question of each listed video clip, answered from the clip's ground-truth event "
    "captions (oracle mode only; the reference's name for video_qa in oracle runs).",
    VideoQAArgs,
    video_qa_oracle,
)

ALL_TOOLS: tuple[Tool, ...] = SEARCH_TOOLS + QA_TOOLS + PERCEPTION_TOOLS + UTILITY_TOOLS
REGISTRY: dict[str, Tool] = {t.name: t for t in (*ALL_TOOLS, VIDEO_QA_ORACLE)}
"""Every tool by name: what a preset may offer."""


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
    except Exception as e:
        if is_user_error(e):  # ToolError, SearchError, MediaError, EngineUnavailable, ...
            return ToolResult.failure(name, str(e))
        # a bug in a tool must not end the agent's run; keep the traceback
        log.exception("tool %s failed", name)
        return ToolResult.failure(name, f"internal error in {name}: {type(e).__name__}: {e}")
