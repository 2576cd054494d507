"""Admission control for agent runs: a fixed number in flight, the next one refused with 429
and Retry-After. A queue would hide overload until every client times out."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from playscout.errors import PlayscoutError

T = TypeVar("T")


class Overloaded(PlayscoutError):
    """429 with Retry-After."""

    status_code = 429
    code = "too_many_asks"

    def __init__(self, retry_after_s: int) -> None:
        super().__init__(f"server busy: too many asks in flight; retry in {retry_after_s} s")
        self.retry_after_s = retry_after_s
        self.headers = {"Retry-After": str(retry_after_s)}


class AskLimiter:
    """Counts slots on the event loop thread (no lock needed); tracks the runs' tasks so that
    shutdown can wait for them or cancel them."""

    def __init__(self, limit: int, retry_after_s: int) -> None:
        self.limit = limit
        self.retry_after_s = retry_after_s
        self.in_use = 0
        self.tasks: set[asyncio.Task[Any]] = set()
        self.closing = False

    def acquire(self) -> None:
        if self.closing:
            raise Overloaded(self.retry_after_s)
        if self.in_use >= self.limit:
            raise Overloaded(self.retry_after_s)
        self.in_use += 1

    def release(self) -> None:
        self.in_use = max(0, self.in_use - 1)

    def start(self, make_run: Callable[[], Coroutine[Any, Any, T]]) -> asyncio.Task[T]:
        """Admits a run and ties its slot to the run's task: the slot comes back when the task
        ends, however the HTTP response that asked for it ended (or never started)."""
        self.acquire()
        try:
            task = self.spawn(make_run())
        except BaseException:
            self.release()
            raise
        task.add_done_callback(lambda _: self.release())
        return task

    def spawn(self, coro: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        task = asyncio.create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    async def drain(self, grace_s: float) -> int:
        """Stop admitting, let in-flight runs finish for `grace_s`, cancel the rest (they record
        themselves as interrupted). Returns how many were cancelled."""
        self.closing = True
        pending = set(self.tasks)
        if not pending:
            return 0
        _, still = await asyncio.wait(pending, timeout=grace_s) if grace_s > 0 else (set(), pending)
        for task in still:
            task.cancel()
        if still:
            await asyncio.gather(*still, return_exceptions=True)
        return len(still)
