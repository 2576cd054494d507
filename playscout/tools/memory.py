"""memory: the agent's scratchpad across turns (STARAgent's `memory_tool`): facts it has
established ("target game = 401584793", "Walker's first 3 of the 2nd half = 401584793_141")
survive context trimming because they live outside the conversation.

One `SessionMemory` per agent run, carried by its ToolContext."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from playscout.tools.declare import tool
from playscout.tools.session_memory import MAX_KEY, MAX_VALUE
from playscout.tools.tool import ToolArgs, ToolContext, ToolResult


class MemoryArgs(ToolArgs):
    action: Literal["write", "read", "list", "delete"] = Field(
        ..., description="write a note, read one, list all, or delete one."
    )
    key: str | None = Field(None, description=f"Note name, at most {MAX_KEY} characters.")
    value: str | None = Field(None, description=f"Note text for write, at most {MAX_VALUE} chars.")


class MemoryResult(BaseModel):
    action: str
    key: str | None = None
    value: str | None = None
    notes: dict[str, str] = {}
    count: int


LIST_PREVIEW = 120


@tool(
    "memory",
    "A notepad that survives the whole run: write short notes under a key (e.g. the target "
    "game id, clip ids found, partial answers), read or delete them, or list all notes.",
    group="utility",
)
def memory(ctx: ToolContext, args: MemoryArgs) -> ToolResult:
    store = ctx.memory
    key = args.key.strip() if args.key else None
    if args.action == "write":
        replaced = store.write(key, args.value)
        text = (
            f"{'updated' if replaced else 'saved'} note {key!r} ({len(store)}/{store.max_entries})"
        )
        result = MemoryResult(action="write", key=key, value=args.value, count=len(store))
    elif args.action == "read":
        value = store.read(key)
        text = f"{key}: {value}"
        result = MemoryResult(action="read", key=key, value=value, count=len(store))
    elif args.action == "delete":
        store.delete(key)
        text = f"deleted note {key!r} ({len(store)} left)"
        result = MemoryResult(action="delete", key=key, count=len(store))
    else:
        items = store.items()
        lines = [f"{len(items)} note(s)"]
        for k, v in items:
            flat = v.replace("\n", " ")
            lines.append(f"- {k}: {flat[:LIST_PREVIEW]}{'...' if len(flat) > LIST_PREVIEW else ''}")
        text = "\n".join(lines)
        result = MemoryResult(action="list", notes=dict(items), count=len(items))
    return ToolResult(tool="memory", observation=text, data=result)
