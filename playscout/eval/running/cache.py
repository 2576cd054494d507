"""A shared response cache for deterministic model calls (lmms-eval style): SQLite keyed by
sha256(endpoint URL, model, messages, tools, params). The URL is part of the key because two
servers may serve different weights under one model name (a local vLLM and a hosted API both
calling it "qwen3-8b"). Only temperature-0 calls are cached, because a sampled
reply is not a function of its request. WAL mode lets several runs share one file."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

from playscout.clients.chat import ChatClient, ChatMessage, ChatParams, ChatResponse


def request_key(
    endpoint: str,
    model: str,
    messages: Sequence[ChatMessage],
    tools: list[dict[str, Any]] | None,
    params: ChatParams,
) -> str:
    payload = {
        "endpoint": endpoint,
        "model": model,
        "messages": [m.model_dump(mode="json") for m in messages],
        "tools": tools or [],
        "params": params.model_dump(mode="json", exclude={"timeout_s"}),
    }
    return hashlib.sha256(orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)).hexdigest()


class ResponseCache:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, model TEXT, body TEXT)"
        )
        self._db.commit()
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> ChatResponse | None:
        with self._lock:
            row = self._db.execute("SELECT body FROM responses WHERE key=?", (key,)).fetchone()
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        return ChatResponse.model_validate_json(row[0])

    def put(self, key: str, model: str, response: ChatResponse) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO responses VALUES (?, ?, ?)",
                (key, model, response.model_dump_json()),
            )
            self._db.commit()

    def close(self) -> None:
        with self._lock:
            self._db.close()


class CachingChatClient:
    """A ChatClient wrapper: deterministic calls are answered from the cache when seen before.
    Cached replies report latency 0 so throughput numbers are not flattered silently."""

    def __init__(self, inner: ChatClient, cache: ResponseCache) -> None:
        self.inner = inner
        self.cache = cache
        self.model = inner.model
        # The chat URL the inner client posts to (OpenAIChatClient.url); "" for in-process models.
        self.endpoint = str(getattr(inner, "url", "") or "")

    async def chat(
        self,
        messages: Sequence[ChatMessage],
        tools: list[dict[str, Any]] | None = None,
        params: ChatParams | None = None,
    ) -> ChatResponse:
        params = params or ChatParams()
        if params.temperature != 0:
            return await self.inner.chat(messages, tools, params)
        key = request_key(self.endpoint, self.model, messages, tools, params)
        hit = self.cache.get(key)
        if hit is not None:
            return hit.model_copy(update={"latency_s": 0.0})
        response = await self.inner.chat(messages, tools, params)
        if response.finish_reason != "error":
            self.cache.put(key, self.model, response)
        return response

    def __getattr__(self, name: str) -> Any:  # e.g. capability probes of the inner client
        return getattr(self.inner, name)
