"""The CLI's one error policy: a user error (`PlayscoutError` with `user_error`) prints one
line and exits 2; so does an OSError the user caused (disk full, read-only file system,
permission denied: `storage.user_os_error`) that no layer below turned into one; it names the
file, or else the command's `out_dir`. Anything else is a bug and keeps its traceback."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import typer
from rich.console import Console

from playscout.errors import is_user_error, one_line
from playscout.storage import user_os_error

console = Console(stderr=True)
F = TypeVar("F", bound=Callable[..., Any])


def fail(message: str) -> typer.Exit:
    """Prints `error: message` (no markup, so brackets in the message stay literal)."""
    console.print(f"error: {message}", highlight=False, markup=False, style="red", soft_wrap=True)
    return typer.Exit(2)


def user_errors(fn: F) -> F:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except Exception as e:
            if is_user_error(e):
                raise fail(one_line(e)) from None
            # A write error without a file name names the command's output folder instead.
            unnamed = getattr(e, "filename", None) is None
            if (disk := user_os_error(e, kwargs.get("out_dir") if unnamed else None)) is not None:
                raise fail(one_line(disk)) from None
            raise

    return wrapper  # type: ignore[return-value]
