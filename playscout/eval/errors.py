"""Eval errors."""

from __future__ import annotations

from typing import Literal

from playscout.clients.chat import ModelError
from playscout.errors import NotFound, PlayscoutError
from playscout.storage import storage_error_in

ErrorKind = Literal["storage", "transient"]
"""Why an error row failed when the cause says nothing about the question: `storage` (a write
the disk refused: full, read-only) or `transient` (the model server unreachable, timing out,
overloaded, or answering garbage). A plain resume runs such a question again; any other error
waits for `--retry-failed` (storage/records.py, `Outcome.error_kind`)."""


class RunError(PlayscoutError, ValueError):
    """A run that cannot start or resume (mismatched run.json, missing index): one line."""


class UnknownRun(NotFound):
    """No run directory of that id under the runs directory."""

    code = "run_not_found"


class UnknownQuestion(NotFound):
    """No result row (or no trajectory) for that question id in the run."""

    code = "question_not_found"


class RunConflict(PlayscoutError, RuntimeError):
    """An action the run's state does not allow (cancel a finished run, one another process
    runs): HTTP 409."""

    status_code = 409
    code = "run_conflict"


class DataFormatError(RunError):
    """A data file (`eval run --data`) that is not in a format its task reads: one line naming
    the file, the item and the field, raised before anything is written."""


class MissingInput(RunError):
    """One item cannot be answered as the protocol says (its video is absent, its game is not
    in the corpus): the item's row gets status `missing_input` with this reason; the run goes
    on. Never answered from another game or another video instead."""


# What rows written before `error_kind` existed say for the same causes.
_STORAGE_TEXT = (
    "no space left on device",
    "disk quota exceeded",
    "read-only file system",
    "database or disk is full",
)
_TRANSIENT_TEXT = ("ModelUnavailable:", "ModelTimeout:", "ModelBadResponse:", "ModelBusy:")


def failure_kind(error: BaseException | None) -> ErrorKind | None:
    """`storage` for a write the disk refused, `transient` for a model server that could not
    answer (unreachable, timed out, overloaded, garbage), else None (ErrorKind)."""
    if error is None:
        return None
    if storage_error_in(error) is not None:
        return "storage"
    if isinstance(error, ModelError) and error.retryable:  # 429 and 5xx included
        return "transient"
    return None


def failure_kind_of_text(error: str | None) -> ErrorKind | None:
    """The same, read from an error row's text (rows recorded before the kind was)."""
    if not error:
        return None
    if any(t in error.lower() for t in _STORAGE_TEXT):
        return "storage"
    if error.startswith(_TRANSIENT_TEXT):
        return "transient"
    return None
