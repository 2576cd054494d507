"""Tool errors, in their own module so every tool module can raise them without cycles."""

from playscout.errors import PlayscoutError


class ToolError(PlayscoutError, ValueError):
    """Bad arguments or an impossible request: one line the model can act on."""
