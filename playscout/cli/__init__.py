"""`playscout ...`: the command line, a thin layer over `runtime` and the layers below."""

from playscout.cli.main import app, main

__all__ = ["app", "main"]
