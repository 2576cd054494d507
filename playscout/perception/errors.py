"""Perception errors."""

from __future__ import annotations

from playscout.errors import PlayscoutError


class EngineUnavailable(PlayscoutError, RuntimeError):
    """An engine that is not installed, not configured, or cannot load its model; the message
    says what to install or set."""
