"""The registry's views: every tool of `tools.declare.TOOLS` (the built-ins' table, imported
here), by group; tool lookup and invocation, the single place where raw model arguments become
typed calls and every failure becomes an `Error: ...` observation instead of an exception; and
the model clients of the declared roles."""

from __future__ import annotations

import logging
from typing import Any

import orjson
from pydantic import ValidationError

from playscout.clients.factory import chat_client
from playscout.config import QASettings
from playscout.errors import is_user_error
from playscout.tools.declare import GROUPS, TOOLS
from playscout.tools.roles import ROLES, ModelRole
from playscout.tools.tool import ModelSet, Tool, ToolContext, ToolResult

log = logging.getLogger(__name__)


def _in_groups(tools: tuple[Tool, ...]) -> tuple[Tool, ...]:
    return tuple(t for g in GROUPS for t in tools if t.group == g)


REGISTRY: dict[str, Tool] = {t.name: t for t in _in_groups(tuple(TOOLS.values()))}
"""Every tool by name: what a preset may offer."""
ALL_TOOLS: tuple[Tool, ...] = tuple(t for t in REGISTRY.values() if not t.oracle_only)
"""Every tool but the oracle-only stand-ins, search tools first."""
SEARCH_TOOLS: tuple[Tool, ...] = tuple(t for t in ALL_TOOLS if t.group == "search")
QA_TOOLS: tuple[Tool, ...] = tuple(t for t in ALL_TOOLS if t.group == "qa")
PERCEPTION_TOOLS: tuple[Tool, ...] = tuple(t for t in ALL_TOOLS if t.group == "perception")
UTILITY_TOOLS: tuple[Tool, ...] = tuple(t for t in ALL_TOOLS if t.group == "utility")
MODEL_ROLES: tuple[ModelRole, ...] = tuple(ROLES.values())
"""Every model endpoint a tool calls: preflight, `/readyz` and the CLI flags read these."""


def models_from_settings(qa: QASettings) -> ModelSet:
    """Clients for every declared role whose endpoint is configured (clients/factory.py)."""
    clients = {
        r.setting: chat_client(r.endpoint(qa)) if r.endpoint(qa).configured else None
        for r in MODEL_ROLES
        if r.kind == "chat"  # a query tower is the index's (runtime.open_index), not a client
    }
    known = {k: clients.pop(k, None) for k in ("document_llm", "vlm", "caption_llm")}
    return ModelSet(**known, more=clients)


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
