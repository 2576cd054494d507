"""Tool errors, in their own module so every tool module can raise them without cycles."""


class ToolError(ValueError):
    """Bad arguments or an impossible request: one line the model can act on."""
