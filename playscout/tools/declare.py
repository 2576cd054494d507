"""A tool is one declaration: `@tool(...)` on its implementation gives its name, description
template and the model roles it calls; the argument model is the implementation's annotation.
The models it calls are roles declared once in tools/roles.py. The registry
(tools/registry.py) finds every declaration by importing the modules under playscout/tools, so
adding a tool is one new file: no list to extend; preflight, `/readyz` and the CLI's model
flags read the roles a tool names."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from typing import Any, TypeVar

from playscout.tools.describe import unknown_fields
from playscout.tools.errors import ToolSpecError
from playscout.tools.roles import ROLES, ModelRole
from playscout.tools.tool import Tool, ToolArgs, ToolContext, ToolResult

F = TypeVar("F", bound=Callable[[ToolContext, Any], ToolResult])
GROUPS = ("search", "qa", "perception", "utility")
"""The registry's views, in the order ALL_TOOLS lists them."""

_TOOLS: dict[str, Tool] = {}


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
        if ROLES.get(role.name) != role:
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
        if _TOOLS.setdefault(name, made) is not made:
            raise ToolSpecError(f"tool {name!r} is declared twice")
        return fn

    return register


def declared_tools(group: str | None = None) -> tuple[Tool, ...]:
    """The tools declared so far (in declaration order), of one group or all of them."""
    return tuple(t for t in _TOOLS.values() if group is None or t.group == group)
