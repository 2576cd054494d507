"""One pooled httpx.AsyncClient per (base_url, api key) per event loop.

An AsyncClient's connections belong to the loop that opened them, so a client cannot be shared
across loops (reference defect 19: one async client used from several loops). Keying by loop
keeps keep-alive connections within a loop and lets every loop get its own pool lazily; the
weak key drops a loop's clients when the loop itself is gone.
"""

from __future__ import annotations

import asyncio
import threading
import weakref

import httpx

_lock = threading.Lock()
_clients: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[tuple[str, str], httpx.AsyncClient]
]
_clients = weakref.WeakKeyDictionary()

# Many QA calls in flight per tool call, several tools per agent: allow plenty per host.
_LIMITS = httpx.Limits(max_connections=256, max_keepalive_connections=64)


def shared_client(base_url: str, api_key: str | None) -> httpx.AsyncClient:
    """The client for this endpoint on the running loop; created on first use."""
    loop = asyncio.get_running_loop()
    key = (base_url, api_key or "")
    with _lock:
        per_loop = _clients.setdefault(loop, {})
        client = per_loop.get(key)
        if client is None or client.is_closed:
            headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
            client = httpx.AsyncClient(headers=headers, limits=_LIMITS)
            per_loop[key] = client
        return client


async def close_shared_clients() -> None:
    """Close this loop's clients (call before the loop ends to release sockets cleanly)."""
    loop = asyncio.get_running_loop()
    with _lock:
        clients = list(_clients.pop(loop, {}).values())
    for client in clients:
        await client.aclose()
