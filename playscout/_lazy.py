"""Names a package exports but imports on first use (PEP 562), so importing the package does
not load what only some of its names need (torch, LangGraph, httpx: issue 29)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, exports: Mapping[str, str], namespace: dict[str, Any]
) -> Callable[[str], Any]:
    """A module `__getattr__` for `package`: `exports` maps each name to the module that
    defines it; the first use imports that module and keeps the value in `namespace` (the
    package's globals), so later uses are plain attribute reads."""

    def __getattr__(name: str) -> Any:
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(exports[name]), name)
        namespace[name] = value
        return value

    return __getattr__
