"""Eval errors."""

from __future__ import annotations

from playscout.errors import PlayscoutError


class RunError(PlayscoutError, ValueError):
    """A run that cannot start or resume (mismatched run.json, missing index): one line."""
