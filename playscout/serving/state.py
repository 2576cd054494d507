"""What the app shares across requests: one Runtime (backend, model clients, corpus, tools), the
limiter and the metrics. Each ask still gets its own ToolContext (fresh SessionMemory), see
`asks.py`."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playscout.clients.chat import ChatClient
from playscout.config import Settings
from playscout.runtime import Runtime
from playscout.search import SearchBackend
from playscout.search.embedded.live_recall import RecallSampler
from playscout.serving.limits import AskLimiter
from playscout.serving.metrics import Metrics
from playscout.serving.run_service import RunService


@dataclass
class ServingState:
    settings: Settings
    runtime: Runtime
    limiter: AskLimiter
    run_service: RunService | None = None
    checkpointer: Any = None
    sports: list[str] = field(default_factory=list)
    recall: RecallSampler | None = None  # serve's live recall check (serving/recall.py)
    metrics: Metrics = field(init=False)
    draining: asyncio.Task[int] | None = None  # the shutdown's drain, once begun

    def __post_init__(self) -> None:
        self.metrics = Metrics(in_flight=lambda: self.limiter.in_use)

    def begin_shutdown(self) -> None:
        """The server started shutting down (serving/protocol.py): admit no more asks, give the
        running ones `shutdown_grace_s`, then cancel them (each records `interrupted: server
        shutdown`; a stream's last event is an `error` with code `server_shutting_down`).
        Called on the event loop, once per open connection: the first call starts it."""
        if self.draining is None:
            grace = self.settings.serving.shutdown_grace_s
            self.draining = asyncio.get_running_loop().create_task(self.limiter.drain(grace))

    async def drained(self) -> int:
        """Waits for the drain (starting it, when nothing began it); how many were cancelled."""
        self.begin_shutdown()
        assert self.draining is not None
        return await self.draining

    @property
    def backend(self) -> SearchBackend:
        return self.runtime.require_backend()

    @property
    def runs_dir(self) -> Path:
        """Where runs live: the run service's directory, else the configured one (a server
        without a run service still lists and reads runs)."""
        if self.run_service is not None:
            return Path(self.run_service.runs_dir)
        return Path(self.settings.eval.runs_dir)

    @property
    def llm_client(self) -> ChatClient | None:
        return self.runtime.llm
