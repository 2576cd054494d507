"""The embed layer's error, in a module that imports nothing heavy, so the table of embedders
(embed/factory.py) can be read at CLI start-up without numpy."""

from __future__ import annotations

from playscout.errors import PlayscoutError


class EmbeddingError(PlayscoutError, RuntimeError):
    """An embedder that cannot give correct vectors. Messages are one line and say what to do."""
