"""A tool is one declaration: `@tool(...)` on its implementation gives its name, description
template and the model roles it calls; the argument model is the implementation's annotation.
The models it calls are roles declared once in tools/roles.py. `TOOLS` below lists every
built-in tool (the one place that says which tools exist) and imports its module on first use;
preflight, `/readyz` and the CLI's model flags read the roles a tool names."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from typing import Any, TypeVar

from playscout.registry import Registry
from playscout.tools.describe import unknown_fields
from playscout.tools.errors import ToolSpecError
from playscout.tools.roles import ROLES, ModelRole
from playscout.tools.tool import Tool, ToolArgs, ToolContext, ToolResult

F = TypeVar("F", bound=Callable[[ToolContext, Any], ToolResult])
GROUPS = ("search", "qa", "perception", "utility")
"""The registry's views, in the order ALL_TOOLS lists them."""


def _a_declared_tool(name: str, entry: Tool) -> None:
    if not (isinstance(entry, Tool) and entry.name == name):
        raise ToolSpecError(f"tool {name!r}: its table entry is not a function declared @tool")


TOOLS: Registry[Tool] = Registry(
    "tool",
    {
        "search_documents": "playscout.tools.search:search_documents",
        "search_videos": "playscout.tools.search:search_videos",
        "document_qa": "playscout.tools.qa.document:document_qa",
        "video_qa_oracle": "playscout.tools.qa.oracle:video_qa_oracle",
        "video_qa": "playscout.tools.qa.video:video_qa",
        "detect_audio_events": "playscout.tools.perception.audio_events:detect_audio_events",
        "extract_scene_text": "playscout.tools.perception.scene_text:extract_scene_text",
        "transcribe_speech": "playscout.tools.perception.speech:transcribe_speech",
        "calculator": "playscout.tools.calculator:calculator",
        "memory": "playscout.tools.memory:memory",
    },
    unknown=ToolSpecError,
    check=_a_declared_tool,
)
"""Every tool by name: the built-ins' table (each entry is the function `@tool` declares; the
registry keeps its `Tool`), then any declared elsewhere (a plugin, a test)."""


def _args_model(fn: Callable[..., Any], name: str) -> type[ToolArgs]:
    params = list(inspect.signature(fn).parameters)
    hint = typing.get_type_hints(fn).get(params[1]) if len(params) >= 2 else None
    if not (isinstance(hint, type) and issubclass(hint, ToolArgs)):
        raise ToolSpecError(
            f"tool {name!r}: its second parameter must be annotated with a ToolArgs"
        )
    return hint


def tool(
    name: str,
    description: str,
    *,
    group: str,
    reads_media: bool = False,
    roles: tuple[ModelRole, ...] = (),
    oracle_roles: tuple[ModelRole, ...] | None = None,
    oracle_only: bool = False,
    no_preset: str = "",
) -> Callable[[F], F]:
    """Registers the decorated `fn(ctx, args)` as the tool `name`; `fn` itself is unchanged.
    `description` is a template (tools/describe.py): a placeholder nothing fills is an error
    here, at import. `roles`: the models it calls (default mode; `oracle_roles` in oracle mode).
    `no_preset`: why no preset offers it (otherwise the registry test requires one that does)."""
    if group not in GROUPS:
        raise ToolSpecError(f"tool {name!r}: group must be one of {', '.join(GROUPS)}")
    unknown = unknown_fields(description)
    if unknown:
        raise ToolSpecError(f"tool {name!r}: unknown placeholder {{{{{unknown[0]}}}}}")
    for role in (*roles, *(oracle_roles or ())):
        if role.name not in ROLES or ROLES.get(role.name) != role:
            raise ToolSpecError(f"tool {name!r}: model role {role.name!r} is not declared")

    def register(fn: F) -> F:
        made = Tool(
            name,
            description,
            _args_model(fn, name),
            fn,
            reads_media=reads_media,
            group=group,
            roles=roles,
            oracle_roles=oracle_roles,
            oracle_only=oracle_only,
            no_preset=no_preset,
        )
        TOOLS.add(name, made)
        return fn

    return register
