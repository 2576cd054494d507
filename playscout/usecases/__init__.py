"""The use cases, one function each, below the entry points: `prepare_ask` (an ask: `playscout
ask`, `POST /v1/ask`, the chat facade) and `prepare_run` (a batch run: `playscout eval run`,
`POST /v1/runs`). Each takes a request model whose fields left None are chosen from the
settings in one place (usecases/defaults.py), checks that it can run, and returns what the
entry point needs plus its warnings; the CLI and the HTTP routes only parse, call and print.

Names are imported on first use: `playscout ask` does not load the eval registry."""

from __future__ import annotations

from typing import TYPE_CHECKING

from playscout._lazy import lazy_exports

if TYPE_CHECKING:
    from playscout.usecases.ask import AskRequest, Choice, PreparedAsk, prepare_ask
    from playscout.usecases.request import InvalidRequest, Request
    from playscout.usecases.run import LocalRun, PreparedRun, RunRequest, prepare_run

_EXPORTS = {
    "AskRequest": "playscout.usecases.ask",
    "Choice": "playscout.usecases.ask",
    "PreparedAsk": "playscout.usecases.ask",
    "prepare_ask": "playscout.usecases.ask",
    "InvalidRequest": "playscout.usecases.request",
    "Request": "playscout.usecases.request",
    "LocalRun": "playscout.usecases.run",
    "PreparedRun": "playscout.usecases.run",
    "RunRequest": "playscout.usecases.run",
    "prepare_run": "playscout.usecases.run",
}
__all__ = [
    "AskRequest",
    "Choice",
    "InvalidRequest",
    "LocalRun",
    "PreparedAsk",
    "PreparedRun",
    "Request",
    "RunRequest",
    "prepare_ask",
    "prepare_run",
]
__getattr__ = lazy_exports(__name__, _EXPORTS, globals())
