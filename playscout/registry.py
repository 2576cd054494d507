"""One way to register named things (sports, generators, tasks, tools, model roles, backend
kinds, embedders): `add`, `get`, `names`, one "unknown name" message and one re-registration rule.

Built-ins are written in one lazy table, `{name: "module:attr"}`, so every one of a kind is
listed in one greppable place and its module is imported on first use (vLLM's model table
works this way): `names()` and `in` read the table without importing anything. Importing the
module may register the entry itself (a decorator such as `@tool`); otherwise the attribute is
the entry. A name in the table belongs to its built-in: another entry under it is refused.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Generic, NoReturn, TypeVar

from playscout.errors import PlayscoutError

T = TypeVar("T")


class RegistryError(PlayscoutError, ValueError):
    """A second, different entry under a taken name, or a table entry that does not load: a
    bug in the code that registers it, so the CLI keeps the traceback."""

    user_error = False


class UnknownName(PlayscoutError, LookupError):
    """A name nothing is registered under (the default; a registry may raise its own class)."""


def natural_key(name: str) -> list[Any]:
    """Alphabetical, numbers by value (t2 before t10)."""
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name)]


class Registry(Generic[T]):
    """Named entries of one kind. `noun` names the kind in messages ("backend kind"); `lazy`
    is the built-in table; `unknown` is the error class of a failed `get` (it must take one
    message); `check(name, entry)` refuses a malformed entry, added or loaded from the table."""

    def __init__(
        self,
        noun: str,
        lazy: Mapping[str, str] | None = None,
        *,
        unknown: Callable[[str], PlayscoutError] = UnknownName,
        check: Callable[[str, T], None] | None = None,
    ) -> None:
        self.noun = noun
        self._lazy = dict(lazy or {})
        for name, target in self._lazy.items():
            if not re.fullmatch(r"[\w.]+:\w+", target):
                raise RegistryError(f"{noun} {name!r}: {target!r} is not 'module:attr'")
        self._unknown = unknown
        self._check = check
        self._entries: dict[str, T] = {}

    @property
    def builtins(self) -> Mapping[str, str]:
        """The lazy table: built-in name -> "module:attr"."""
        return dict(self._lazy)

    def add(self, name: str, entry: T) -> T:
        """Register `entry` under `name`. The same entry again is a no-op; a different one is a
        RegistryError."""
        if name not in self._entries and name in self._lazy:
            self._resolve_builtin(name)
        known = self._entries.get(name)
        if known is None:
            self._take(name, entry)
            return entry
        if known is entry or known == entry:
            return known
        raise RegistryError(f"{self.noun} {name!r} is already registered (by another entry)")

    def remove(self, name: str) -> None:
        """Forget an entry added with `add` (tests, plugins); a built-in stays."""
        if name in self._lazy:
            raise RegistryError(f"{self.noun} {name!r} is a built-in; it cannot be removed")
        self._entries.pop(name, None)

    def get(self, name: str) -> T:
        """The entry of `name`, its module imported on first use; `unknown` (one line naming
        the known ones) when there is none."""
        entry = self._entries.get(name)
        if entry is not None:
            return entry
        if name in self._lazy:
            return self._load(name)
        self.missing(name)

    __getitem__ = get

    def missing(self, name: str) -> NoReturn:
        """Raise the one "unknown name" error."""
        known = ", ".join(sorted(self.names(), key=natural_key)) or "none"
        raise self._unknown(f"unknown {self.noun} {name!r}; known: {known}")

    def names(self) -> tuple[str, ...]:
        """Every name, built-ins first in table order, then the added ones in order; imports
        nothing."""
        return (*self._lazy, *(n for n in self._entries if n not in self._lazy))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and (name in self._entries or name in self._lazy)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())

    def items(self) -> list[tuple[str, T]]:
        """Every (name, entry) in `names()` order; imports every built-in."""
        return [(name, self.get(name)) for name in self.names()]

    def values(self) -> list[T]:
        return [entry for _, entry in self.items()]

    def _load(self, name: str) -> T:
        module_name, _, attr = self._lazy[name].partition(":")
        module = importlib.import_module(module_name)
        try:
            value = getattr(module, attr)
        except AttributeError:
            raise RegistryError(
                f"{self.noun} {name!r}: {module_name} has no {attr} (the built-in table names it)"
            ) from None
        if name not in self._entries:  # importing it did not register it: the attribute is
            self._take(name, value)
        return self._entries[name]

    def _take(self, name: str, entry: T) -> None:
        if self._check is not None:
            self._check(name, entry)
        self._entries[name] = entry

    def _resolve_builtin(self, name: str) -> None:
        """Before another entry takes a built-in's name, the built-in is loaded so the two are
        compared. While its module is being imported (it is registering itself), or imported
        without defining the attribute yet, nothing is loaded."""
        module_name, _, attr = self._lazy[name].partition(":")
        module = sys.modules.get(module_name)
        if module is None or hasattr(module, attr):
            self._load(name)
