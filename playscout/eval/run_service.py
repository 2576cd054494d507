"""What the HTTP API needs from a batch runner (`RunService`), with its request body.
`EvalRunService` implements it; a server without one answers 501 to submit and cancel instead
of pretending to run anything. Reading runs (list, status, questions) needs no service: the
catalog reads the run directories (eval/catalog.py)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, field_validator

from playscout.agent.trajectory import Event
from playscout.config import DEFAULT_MODE, DEFAULT_POLICY, Mode, Policy
from playscout.corpus.sports import sport as sport_record
from playscout.corpus.sports import sport_names
from playscout.eval.records import ResultRow
from playscout.eval.spec import RunSpec
from playscout.eval.status import RunStatus

NOT_AVAILABLE = "batch runs are not available: no RunService is configured in this server"


class RunRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    task: str = Field("t9", description="Task name from the eval registry.")
    sport: list[str] | str | None = Field(
        None,
        description="Sports: a JSON list or a comma-separated string, as `eval run --sport` "
        "takes [default: every sport in the index].",
    )
    mode: Mode = DEFAULT_MODE
    policy: Policy = DEFAULT_POLICY
    limit: int | None = Field(None, ge=1, description="Questions at most.")

    @field_validator("task")
    @classmethod
    def _known_task(cls, task: str) -> str:
        """Refused at the door (422), not accepted and then failed in the background."""
        from playscout.eval.registry import task_names

        if task not in (names := task_names(generated=True)):
            what = "a task over published data only" if task in task_names() else "unknown task"
            raise ValueError(f"{what} {task!r}; known: {', '.join(names)}")
        return task

    @field_validator("sport")
    @classmethod
    def _known_sports(cls, value: list[str] | str | None) -> list[str] | None:
        """Always a list afterwards; each name a known sport (422 otherwise)."""
        if value is None:
            return None
        names = value.split(",") if isinstance(value, str) else value
        sports = [sport_record(n.strip()).name for n in names if n.strip()]
        return list(dict.fromkeys(sports)) or None

    @property
    def sports(self) -> tuple[str, ...]:
        return tuple(self.sport or ())  # a list after validation

    def spec(
        self, out_dir: Path, concurrency: int, every: tuple[str, ...] | None = None
    ) -> RunSpec:
        """The run this request asks for, in `out_dir`; the server sets the parallelism.
        `every`: the sports a request that names none runs (the index's; all registered ones
        when not given)."""
        return RunSpec(
            task=self.task,
            mode=self.mode,
            sports=self.sports or every or sport_names(),
            policy=self.policy,
            limit=self.limit,
            concurrency=concurrency,
            out_dir=out_dir,
        )


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
