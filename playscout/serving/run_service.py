"""What the HTTP API needs from a batch runner (`RunService`). `EvalRunService`
(serving/eval_service.py) implements it; a server without one answers 501 to submit and cancel
instead of pretending to run anything. The request body is the run use case's
(`usecases.RunRequest`). Reading runs (list, status, questions) needs no service: the catalog
reads the run directories (eval/results/catalog.py)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from playscout.agent.trajectory import Event
from playscout.eval.running.spec import RunSpec
from playscout.eval.storage.records import ResultRow
from playscout.eval.storage.status import RunStatus
from playscout.usecases.run import RunRequest

NOT_AVAILABLE = "batch runs are not available: no RunService is configured in this server"


class RunListener(Protocol):
    """Told what a server's batch runs do, from the run's own thread (the server's metrics,
    serving/metrics.py). `events` are the question's trajectory, as recorded."""

    def run_started(self, run_id: str, spec: RunSpec) -> None: ...

    def question_done(
        self, run_id: str, spec: RunSpec, row: ResultRow, events: Sequence[Event]
    ) -> None: ...

    def run_ended(self, run_id: str, spec: RunSpec, state: str) -> None: ...


@runtime_checkable
class Observable(Protocol):
    """A RunService that tells listeners about its runs (EvalRunService)."""

    listeners: list[RunListener]


@runtime_checkable
class RunService(Protocol):
    """What the API needs from a batch runner: where its runs live, start one (returns at
    once, the run `queued` on disk), cancel one it runs (UnknownRun, RunConflict)."""

    runs_dir: Path

    def submit(self, request: RunRequest) -> RunStatus: ...

    def cancel(self, run_id: str) -> RunStatus: ...
