"""The one base of the errors playscout raises on purpose. It imports nothing from playscout,
so every layer can raise it.

`user_error` says who can fix it. True (the default): the user (a malformed corpus, an unknown
id, a bad filter, a model server that is down); the CLI prints one line and exits 2, the API
answers 4xx with the reason. False: playscout itself; the CLI keeps the traceback and the API
answers 500. An exception that is not a `PlayscoutError` is always a bug.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any, ClassVar


class PlayscoutError(Exception):
    """Subclasses usually also derive from the builtin that fits (ValueError, ...), so callers
    that catch builtins keep working."""

    user_error: ClassVar[bool] = True


class NotFound(PlayscoutError, LookupError):
    """Something named by id that does not exist (a run, a question, a clip): HTTP 404."""

    status_code = 404


def is_user_error(error: BaseException) -> bool:
    return isinstance(error, PlayscoutError) and error.user_error


def displayable(text: str) -> str:
    """Text that any terminal, log line or JSON document can carry. A file name that is not
    UTF-8 reaches Python as lone surrogates (PEP 383), which a strict encoder refuses: its
    bytes are shown escaped (`\\xff`) instead of raising mid-output."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        raw = text.encode("utf-8", "surrogateescape" if _only_escapes(text) else "backslashreplace")
        return raw.decode("utf-8", "backslashreplace")


def displayable_json(data: Any) -> Any:
    """`data` with every string (and path) displayable: what a JSON encoder, which takes only
    UTF-8, can write. Lossy only for names that were not UTF-8 to begin with."""
    if isinstance(data, str):
        return displayable(data)
    if isinstance(data, PurePath):
        return displayable(str(data))
    if isinstance(data, dict):
        return {displayable_json(k): displayable_json(v) for k, v in data.items()}
    if isinstance(data, (list, tuple, set, frozenset)):
        return [displayable_json(v) for v in data]
    return data


def _only_escapes(text: str) -> bool:
    """Whether every surrogate is one `surrogateescape` made from an undecodable byte."""
    return all(not 0xD800 <= ord(c) <= 0xDFFF or 0xDC80 <= ord(c) <= 0xDCFF for c in text)


def one_line(value: object, limit: int = 500, ellipsis: str = "...") -> str:
    """Text, or an exception's message, with its whitespace folded to single spaces and cut to
    `limit` characters, displayable anywhere. An exception with no message gives its type's
    name."""
    text = displayable(" ".join(str(value).split()))
    if not text and isinstance(value, BaseException):
        text = type(value).__name__
    return text if len(text) <= limit else text[: limit - len(ellipsis)] + ellipsis


def install_hint(extra: str) -> str:
    """How to install what an optional feature needs, spelled one way everywhere."""
    return f"pip install 'playscout[{extra}]'"
