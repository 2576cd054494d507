"""Run a coroutine from synchronous code, whether or not the caller's thread runs a loop.

The registry calls tools synchronously; the QA tools are async inside. asyncio.run per call
(the reference) breaks when a loop is already running and throws away pooled connections;
nest_asyncio patches the loop globally. Instead one daemon thread owns a long-lived loop that
every synchronous caller submits to, so pooled HTTP connections survive between tool calls.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_thread: threading.Thread | None = None


def _background_loop() -> asyncio.AbstractEventLoop:
    global _loop, _thread
    with _lock:
        if _loop is None or _loop.is_closed() or _thread is None or not _thread.is_alive():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="playscout-async", daemon=True)
            thread.start()
            _loop, _thread = loop, thread
        return _loop


def run_sync(coro: Coroutine[Any, Any, T], timeout_s: float | None = None) -> T:
    """Block until `coro` finishes on the shared background loop; its exception propagates."""
    loop = _background_loop()
    if threading.current_thread() is _thread:
        coro.close()
        raise RuntimeError("run_sync called from the background loop itself; await instead")
    future = asyncio.run_coroutine_threadsafe(coro, loop)
    try:
        return future.result(timeout_s)
    except TimeoutError:
        future.cancel()
        raise
