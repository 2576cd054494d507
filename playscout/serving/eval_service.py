"""The eval runner behind the HTTP API's `RunService` protocol (serving/run_service.py).

`submit` prepares the run as `eval run` does (`usecases.prepare_run`: the server's defaults,
the same checks; a refusal is a PreflightError, a 400 over HTTP, and nothing is written), names
the run directory like the CLI does (time, task, mode, model), writes it `queued` and starts
the run on a thread with its own event loop, on the Runtime the checks were made on; the runner
then keeps status.json current, so the status outlives this process (catalog.py reads it, and
reports a run whose process died as `interrupted`). `cancel` cancels the run's task on that
loop: the agents stop between steps (no further model calls; a tool call already running
finishes) and the run ends `cancelled`, resumable like a killed one. `listeners` are told when
a run starts and ends and what each question did (the server's metrics)."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

from playscout.agent.trajectory import Event, read_trajectory
from playscout.clients.pool import close_shared_clients
from playscout.config import EvalSettings, Settings
from playscout.eval.errors import RunConflict
from playscout.eval.results.catalog import run_dir as find_run_dir
from playscout.eval.running.runner import CANCELLED, run_eval_async
from playscout.eval.running.spec import RunSpec
from playscout.eval.storage.records import ResultRow
from playscout.eval.storage.status import (
    ACTIVE,
    RunOwner,
    RunStatus,
    read_status,
    run_lock,
    write_status,
)
from playscout.runtime import Runtime
from playscout.serving.run_service import RunListener
from playscout.storage import OutputLock
from playscout.usecases.run import RunRequest, new_run_dir, prepare_run

T = TypeVar("T")
log = logging.getLogger(__name__)
CANCEL_REQUESTED = "cancel requested; stopping after the steps in flight"


class _Active:
    """One run this service is running: its thread, and its task on its own loop."""

    def __init__(self, lock: OutputLock) -> None:
        self.lock = lock  # the run folder's, taken at submit
        self.loop: asyncio.AbstractEventLoop | None = None
        self.task: asyncio.Task[Any] | None = None
        self.cancel_requested = False
        self.thread: threading.Thread | None = None

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        self.task, self.loop = asyncio.current_task(), asyncio.get_running_loop()
        try:
            if self.cancel_requested:  # cancelled before the loop existed
                coro.close()
                raise asyncio.CancelledError
            return await coro
        finally:  # this loop ends with the run: release its pooled model connections now
            await close_shared_clients()

    def cancel(self) -> None:
        self.cancel_requested = True  # set first: `run` checks it after publishing its task
        loop, task = self.loop, self.task
        if loop is not None and task is not None:
            loop.call_soon_threadsafe(task.cancel)


class EvalRunService:
    def __init__(
        self,
        settings: Settings | None = None,
        eval_settings: EvalSettings | None = None,
        backend: Any = None,
    ) -> None:
        settings = settings or Settings.load()
        self.eval = eval_settings or settings.eval
        self.settings = settings.model_copy(update={"eval": self.eval})
        self.runs_dir = Path(self.eval.runs_dir)
        self.backend = backend
        self._active: dict[str, _Active] = {}
        self._lock = threading.Lock()
        self.listeners: list[RunListener] = []

    def submit(self, request: RunRequest) -> RunStatus:
        prepared = prepare_run(request, self.settings, backend=self.backend, probe=False)
        spec, runtime = prepared.spec, prepared.runtime
        with self._lock:  # two submits in one second get distinct directories
            out = new_run_dir(self.settings, spec.task, spec.mode, spec.policy)
            spec = spec.model_copy(update={"out_dir": out})
            lock = run_lock(out).acquire()  # held from queued to the end of the run
            status = RunStatus(id=out.name, state="queued", created=time.time())
            chosen = {"mode": spec.mode, "policy": spec.policy, "sports": list(spec.sports)}
            asked = {**request.model_dump(mode="json"), **chosen}
            try:
                write_status(out, status, RunOwner.me(), asked)
            except BaseException:
                lock.release()
                raise
            active = _Active(lock)
            self._active[status.id] = active
        active.thread = threading.Thread(
            target=self._work, args=(status.id, spec, runtime, active), daemon=True
        )
        active.thread.name = f"playscout-run-{status.id}"
        active.thread.start()
        return status

    def cancel(self, run_id: str) -> RunStatus:
        path = find_run_dir(self.runs_dir, run_id)  # UnknownRun
        with self._lock:
            active = self._active.get(run_id)
        status = read_status(path)
        if active is None or status is None:
            state = status.state if status else "unknown"
            if status is not None and status.state in ACTIVE and status.owner is not None:
                raise RunConflict(
                    f"run {run_id!r} is run by another process (pid {status.owner.pid} on "
                    f"{status.owner.host}), not this server; stop it there"
                )
            raise RunConflict(f"run {run_id!r} is {state}: nothing to cancel")
        active.cancel()
        status.message = CANCEL_REQUESTED
        return RunStatus.model_validate(status.model_dump(include=set(RunStatus.model_fields)))

    def running(self) -> list[str]:
        """Ids of the runs this service has in flight."""
        with self._lock:
            return list(self._active)

    def wait(self, run_id: str, timeout_s: float | None = None) -> bool:
        """Block until the run's thread ended (tests, shutdown); False on timeout."""
        with self._lock:
            active = self._active.get(run_id)
        if active is None or active.thread is None:
            return True
        active.thread.join(timeout_s)
        return not active.thread.is_alive()

    def _work(self, run_id: str, spec: RunSpec, runtime: Runtime, active: _Active) -> None:
        error: BaseException | None = None
        out = Path(spec.out_dir)
        self._tell("run_started", run_id, spec)
        try:
            run = run_eval_async(
                spec,
                self.settings,
                runtime=runtime,
                lock=active.lock,
                on_result=lambda row: self._question_done(run_id, spec, row),
            )
            asyncio.run(active.run(run))
        except BaseException as e:  # reported through status.json, never raised into nothing
            error = e
        finally:
            try:
                self._settle(out, active, error)
            except OSError as e:  # a full disk: one line in the log, not a thread traceback
                log.error("run %s: cannot record how it ended: %s", run_id, e)
            active.lock.release()
            with self._lock:
                self._active.pop(run_id, None)
            status = read_status(out)
            self._tell("run_ended", run_id, spec, status.state if status else "failed")

    def _question_done(self, run_id: str, spec: RunSpec, row: ResultRow) -> None:
        if not self.listeners:
            return
        events: list[Event] = []
        if row.trajectory:
            path = Path(spec.out_dir) / row.trajectory
            try:
                events = read_trajectory(path) if path.exists() else []
            except Exception as e:  # a listener's input; the run goes on
                log.warning("run %s: cannot read %s for the metrics: %s", run_id, path, e)
        self._tell("question_done", run_id, spec, row, events)

    def _tell(self, what: str, *args: Any) -> None:
        """Calls every listener; one that raises is logged, never allowed to stop a run."""
        for listener in self.listeners:
            try:
                getattr(listener, what)(*args)
            except Exception:
                log.exception("run listener %r failed in %s", listener, what)

    @staticmethod
    def _settle(out: Path, active: _Active, error: BaseException | None) -> None:
        """The runner records how its run ended once it has started; a run that failed or
        was cancelled before that is still `queued` on disk, and is finished here."""
        status = read_status(out)
        if status is None or status.state not in ACTIVE:
            return
        if active.cancel_requested:
            status.state, status.message = "cancelled", CANCELLED
        else:
            why = f"{type(error).__name__}: {error}" if error else "ended without a result"
            status.state, status.message = "failed", why
        status.finished = time.time()
        write_status(out, status, status.owner, status.request)
