"""The eval runner behind the HTTP API's `RunService` protocol (playscout/eval/run_service.py):
`submit` starts a run on a background thread and returns at once; `get` reports progress and,
when done, the summary. Runs live in `runs_dir/<id>` like CLI runs, so the CLI can judge and
report them too."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from playscout.agent.ids import new_id
from playscout.config import EvalSettings, Settings
from playscout.eval.run_service import RunRequest, RunStatus
from playscout.eval.runner import run_eval


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
        self.backend = backend
        self._runs: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def submit(self, request: RunRequest) -> RunStatus:
        run_id = new_id()
        state = {"id": run_id, "state": "queued", "done": 0, "total": None, "created": time.time()}
        with self._lock:
            self._runs[run_id] = state
        threading.Thread(target=self._work, args=(run_id, request), daemon=True).start()
        return self._status(state)

    def get(self, run_id: str) -> RunStatus | None:
        with self._lock:
            state = self._runs.get(run_id)
        return self._status(state) if state else None

    def _work(self, run_id: str, req: RunRequest) -> None:
        state = self._runs[run_id]
        state["state"] = "running"

        def progress(done: int, total: int) -> None:
            state["done"], state["total"] = done, total

        try:
            spec = req.spec(Path(self.eval.runs_dir) / run_id, self.eval.concurrency)
            summary = run_eval(spec, self.settings, backend=self.backend, progress=progress)
            state["results"] = summary.model_dump(mode="json")
            state["state"] = "done"
        except Exception as e:  # reported through get(), never raised into the API thread
            state["state"] = "failed"
            state["message"] = f"{type(e).__name__}: {e}"

    @staticmethod
    def _status(state: dict[str, Any]) -> RunStatus:
        return RunStatus(**state)
