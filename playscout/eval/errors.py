"""Eval errors."""

from __future__ import annotations

from playscout.errors import NotFound, PlayscoutError


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
