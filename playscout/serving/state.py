"""What the app shares across requests: one Runtime (backend, model clients, corpus, tools) and
the limiter. Each ask still gets its own ToolContext (fresh SessionMemory), see `asks.py`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playscout.clients.chat import ChatClient
from playscout.config import Settings
from playscout.eval.run_service import RunService
from playscout.runtime import Runtime
from playscout.search import SearchBackend
from playscout.serving.limits import AskLimiter


@dataclass
class ServingState:
    settings: Settings
    runtime: Runtime
    limiter: AskLimiter
    run_service: RunService | None = None
    checkpointer: Any = None
    sports: list[str] = field(default_factory=list)

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
