"""The one base of the errors playscout raises on purpose. It imports nothing from playscout,
so every layer can raise it.

`user_error` says who can fix it. True (the default): the user (a malformed corpus, an unknown
id, a bad filter, a model server that is down); the CLI prints one line and exits 2, the API
answers 4xx with the reason. False: playscout itself; the CLI keeps the traceback and the API
answers 500. An exception that is not a `PlayscoutError` is always a bug.
"""

from __future__ import annotations

from typing import ClassVar


class PlayscoutError(Exception):
    """Subclasses usually also derive from the builtin that fits (ValueError, ...), so callers
    that catch builtins keep working."""

    user_error: ClassVar[bool] = True


class NotFound(PlayscoutError, LookupError):
    """Something named by id that does not exist (a run, a question, a clip): HTTP 404."""

    status_code = 404


def is_user_error(error: BaseException) -> bool:
    return isinstance(error, PlayscoutError) and error.user_error


def one_line(value: object, limit: int = 500, ellipsis: str = "...") -> str:
    """Text, or an exception's message, with its whitespace folded to single spaces and cut to
    `limit` characters. An exception with no message gives its type's name."""
    text = " ".join(str(value).split())
    if not text and isinstance(value, BaseException):
        text = type(value).__name__
    return text if len(text) <= limit else text[: limit - len(ellipsis)] + ellipsis
