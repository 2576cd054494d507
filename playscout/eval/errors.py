"""Eval errors."""

from __future__ import annotations

from playscout.errors import PlayscoutError


class RunError(PlayscoutError, ValueError):
    """A run that cannot start or resume (mismatched run.json, missing index): one line."""


class DataFormatError(RunError):
    """A data file (`eval run --data`) that is not in a format its task reads: one line naming
    the file, the item and the field, raised before anything is written."""


class MissingInput(RunError):
    """One item cannot be answered as the protocol says (its video is absent, its game is not
    in the corpus): the item's row gets status `missing_input` with this reason; the run goes
    on. Never answered from another game or another video instead."""
