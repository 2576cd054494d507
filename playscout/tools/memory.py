"""memory: the agent's scratchpad across turns (STARAgent's `memory_tool`): facts it has
established ("target game = 401584793", "Walker's first 3 of the 2nd half = 401584793_141")
survive context trimming because they live outside the conversation.

One `SessionMemory` per agent run. Until `ToolContext` carries it (proposed field
`memory: SessionMemory`), `memory_for(ctx)` keeps one per context object, dropped when the
context is garbage-collected, so runs never see each other's notes."""

from __future__ import annotations

import threading
import weakref
from typing import Literal

from pydantic import BaseModel, Field

from playscout.tools.base import ToolArgs, ToolContext, ToolError, ToolResult

MAX_KEY = 64
MAX_VALUE = 2000
MAX_ENTRIES = 100


class SessionMemory:
    """Bounded, thread-safe key -> note store; insertion order is listing order."""

    def __init__(
        self, max_entries: int = MAX_ENTRIES, max_key: int = MAX_KEY, max_value: int = MAX_VALUE
    ) -> None:
        self.max_entries, self.max_key, self.max_value = max_entries, max_key, max_value
        self._notes: dict[str, str] = {}
        self._lock = threading.Lock()

    def _key(self, key: str | None) -> str:
        k = (key or "").strip()
        if not k:
            raise ToolError("give a key")
        if len(k) > self.max_key:
            raise ToolError(f"key longer than {self.max_key} characters")
        if not k.isprintable():
            raise ToolError("key must be printable text on one line")
        return k

    def write(self, key: str | None, value: str | None) -> bool:
        """Store a note; True when it replaced one."""
        k = self._key(key)
        if value is None or not value.strip():
            raise ToolError("give a value to write (use delete to remove a note)")
        if len(value) > self.max_value:
            raise ToolError(f"value longer than {self.max_value} characters; store a summary")
        with self._lock:
            replaced = k in self._notes
            if not replaced and len(self._notes) >= self.max_entries:
                raise ToolError(
                    f"memory is full ({self.max_entries} notes); delete a note before writing"
                )
            self._notes[k] = value
            return replaced

    def read(self, key: str | None) -> str:
        k = self._key(key)
        with self._lock:
            if k not in self._notes:
                known = ", ".join(list(self._notes)[:10]) or "none"
                raise ToolError(f"no note {k!r}; keys: {known}")
            return self._notes[k]

    def delete(self, key: str | None) -> None:
        k = self._key(key)
        with self._lock:
            if self._notes.pop(k, None) is None:
                raise ToolError(f"no note {k!r} to delete")

    def items(self) -> list[tuple[str, str]]:
        with self._lock:
            return list(self._notes.items())

    def __len__(self) -> int:
        with self._lock:
            return len(self._notes)


_by_context: dict[int, SessionMemory] = {}
_registry_lock = threading.Lock()


def memory_for(ctx: ToolContext) -> SessionMemory:
    """The context's memory: its own `memory` attribute when it has one, else one kept per
    context object (keyed by id, removed by a weakref finalizer when the context dies)."""
    own = getattr(ctx, "memory", None)
    if isinstance(own, SessionMemory):
        return own
    key = id(ctx)
    with _registry_lock:
        found = _by_context.get(key)
        if found is None:
            found = _by_context[key] = SessionMemory()
            weakref.finalize(ctx, _forget, key)
        return found


def _forget(key: int) -> None:
    with _registry_lock:
        _by_context.pop(key, None)


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


def memory(ctx: ToolContext, args: MemoryArgs) -> ToolResult:
    store = memory_for(ctx)
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
