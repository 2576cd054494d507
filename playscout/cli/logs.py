"""Log lines on the command line: one handler on the root logger, on stderr, WARNING and up
unless `-v`. Libraries log through the root logger's handlers; PySceneDetect sets its own
logger to INFO when imported, and with any root handler (another library's basicConfig) its
INFO lines leaked into the output. Installed first, ours is the one root handler (basicConfig
adds none where one exists), and its level decides what a user sees."""

from __future__ import annotations

import logging
import sys

FORMAT = "%(levelname)s %(name)s: %(message)s"


class _CliHandler(logging.Handler):
    """Writes to the stderr of the moment (a test runner swaps it)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(self.format(record) + "\n")
        except Exception:
            self.handleError(record)


def configure_logging(verbose: bool = False) -> logging.Handler:
    """Route every logger's records through one stderr handler: warnings and errors by
    default, INFO too with `verbose`. Idempotent: a second call only changes the level."""
    root = logging.getLogger()
    handler = next((h for h in root.handlers if isinstance(h, _CliHandler)), None)
    if handler is None:
        handler = _CliHandler()
        handler.setFormatter(logging.Formatter(FORMAT))
        root.addHandler(handler)
    level = logging.INFO if verbose else logging.WARNING
    handler.setLevel(level)
    root.setLevel(min(root.level or logging.WARNING, level))
    return handler
