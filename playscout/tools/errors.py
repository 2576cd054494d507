"""Tool errors, in their own module so every tool module can raise them without cycles."""

from playscout.errors import PlayscoutError


class ToolError(PlayscoutError, ValueError):
    """Bad arguments or an impossible request: one line the model can act on."""


class ToolSpecError(PlayscoutError, ValueError):
    """A preset that names a tool, a parameter or a description the registry does not have:
    one line, raised when the run is set up (never shown to a model)."""
