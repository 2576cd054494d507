"""A run's status, kept in its directory (`status.json`) so it outlives the process that ran
it. The runner writes it as the run goes (running, progress, then done / failed / cancelled);
the HTTP run service writes `queued` before the runner starts. Whoever writes `running` also
writes who it is (`owner`, a storage.ProcessOwner: pid, host, process start time): a reader that finds the run
`running` while that process is gone reports `interrupted` (a killed CLI run, a server that
restarted mid-run), never a run that looks alive forever.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Literal

import orjson
from pydantic import BaseModel, Field, ValidationError

from playscout.agent.ids import ID_PATTERN
from playscout.eval.storage.store import write_json_atomic
from playscout.storage import OutputLock, ProcessOwner

STATUS_JSON = "status.json"
RunState = Literal["queued", "running", "done", "failed", "cancelled", "interrupted", "unknown"]
ACTIVE: tuple[RunState, ...] = ("queued", "running")
RUN_STATES: tuple[RunState, ...] = RunState.__args__  # type: ignore[attr-defined]


class RunStatus(BaseModel):
    """What GET /v1/runs/{id} says about progress. `done`/`total` count questions with a
    result row / questions in the run (a resumed run starts at what it had)."""

    id: str = Field(pattern=ID_PATTERN)
    state: RunState
    done: int = 0
    total: int | None = None
    created: float
    updated: float | None = None
    finished: float | None = None
    message: str | None = Field(None, description="Why it failed, was cancelled or stopped.")
    results: dict[str, object] | None = Field(None, description="The run summary, when done.")


RunOwner = ProcessOwner
"""The process running a run (storage.ProcessOwner: pid, host, start time)."""


class StatusFile(RunStatus):
    """status.json: the status, who runs it, and what was asked for (a queued run has no
    run.json yet, so its task and mode are listed from here)."""

    owner: RunOwner | None = None
    request: dict[str, Any] | None = None


def run_lock(run_dir: Path) -> OutputLock:
    """The lock one process holds on a run folder while it runs (`.<run id>.lock` beside it;
    the kernel drops it when the holder dies, so an interrupted run can be resumed)."""
    return OutputLock(Path(run_dir), "eval run")


def write_status(
    run_dir: Path,
    status: RunStatus,
    owner: RunOwner | None = None,
    request: dict[str, Any] | None = None,
) -> None:
    fields = status.model_dump(include=set(RunStatus.model_fields))
    record = StatusFile(**fields, owner=owner, request=request)
    record.updated = time.time()
    Path(run_dir).mkdir(parents=True, exist_ok=True)
    write_json_atomic(Path(run_dir) / STATUS_JSON, record.model_dump(mode="json"))


def read_status(run_dir: Path) -> StatusFile | None:
    """The status as a reader should see it: `interrupted` when its owner is gone. None when
    the directory has no readable status.json."""
    path = Path(run_dir) / STATUS_JSON
    try:
        status = StatusFile.model_validate(orjson.loads(path.read_bytes()))
    except (OSError, orjson.JSONDecodeError, ValidationError):
        return None
    if status.state in ACTIVE and status.owner is not None and not status.owner.alive():
        status.state = "interrupted"
        status.message = (
            f"the process that ran it (pid {status.owner.pid}) ended before it finished; "
            "`playscout eval run --out <run dir>` with the same options resumes it"
        )
    return status


class StatusTracker:
    """The runner's side: `running` with this process as owner, progress at most once a
    second, then the final state. The first `created` (a queued run's) is kept."""

    def __init__(self, run_dir: Path, total: int, done: int, min_interval_s: float = 1.0):
        self.run_dir = Path(run_dir)
        self.owner = RunOwner.me()
        self.min_interval_s = min_interval_s
        before = read_status(self.run_dir)
        self.request = before.request if before else None
        self.status = RunStatus(
            id=self.run_dir.name,
            state="running",
            done=done,
            total=total,
            created=before.created if before else time.time(),
        )
        self._written = 0.0
        self._write()

    def _write(self) -> None:
        write_status(self.run_dir, self.status, self.owner, self.request)
        self._written = time.monotonic()

    def progress(self, done: int) -> None:
        self.status.done = done
        if time.monotonic() - self._written >= self.min_interval_s:
            self._write()

    def finish(
        self, state: RunState, message: str | None = None, results: dict[str, object] | None = None
    ) -> None:
        self.status.state = state
        self.status.message = message
        self.status.results = results
        self.status.finished = time.time()
        self._write()
