"""Per-run key/value notes of the agent, bounded and thread-safe (see tools/memory.py)."""

from __future__ import annotations

import threading

from playscout.tools.errors import ToolError

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
