"""What the app shares across requests: one backend, one set of model clients, the limiter.
Each ask still gets its own ToolContext (fresh SessionMemory), see `asks.py`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from playscout.clients.base import ChatClient
from playscout.config import Settings
from playscout.indexer.corpus import Corpus
from playscout.indexer.search.base import SearchBackend
from playscout.serving.limits import AskLimiter
from playscout.serving.runs import RunService
from playscout.tools.base import ModelSet, Tool


@dataclass
class ServingState:
    settings: Settings
    backend: SearchBackend
    limiter: AskLimiter
    models: ModelSet = field(default_factory=ModelSet)
    llm_client: ChatClient | None = None
    corpus: Corpus | None = None
    tools: tuple[Tool, ...] | None = None
    run_service: RunService | None = None
    checkpointer: Any = None
    sports: list[str] = field(default_factory=list)
