"""`/healthz` (the process answers) and `/readyz` (the index is open and every configured model
endpoint answers `/models` and lists its model: the CLI's preflight check, runtime/preflight.py;
unconfigured endpoints are reported as such, not as failures); the tools' endpoints are the
roles declared in tools/roles.py; the sessions' database answers (agent/sessions.py). The
readiness body's index entry
carries the live recall estimate per clip channel (serving/recall.py); it also counts
asks: slots in use, runs in flight, and the limit."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse

from playscout.agent.sessions import SessionStoreError, check_session_db
from playscout.runtime.preflight import check_endpoint
from playscout.serving.routes import get_state
from playscout.serving.state import ServingState
from playscout.tools.roles import ROLES

router = APIRouter(tags=["health"])
State = Annotated[ServingState, Depends(get_state)]


@router.get("/healthz")
def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/readyz")
async def readyz(state: State) -> JSONResponse:
    s = state.settings
    endpoints = {"agent": s.agent.llm, **{r.status: r.endpoint(s.qa) for r in ROLES.values()}}
    timeout = s.serving.readiness_timeout_s
    checks = await asyncio.gather(
        *(check_endpoint(name, ep, timeout_s=timeout) for name, ep in endpoints.items())
    )
    models = {
        name: {"status": c.state, "url": c.url, "detail": c.detail, "ok": not c.failed}
        for name, c in zip(endpoints, checks, strict=True)
    }
    try:
        sports = await asyncio.to_thread(state.backend.sports)
        index: dict[str, Any] = {"status": "ok", "sports": sports}
        if state.recall is not None:  # live recall per sport and channel (serving/recall.py)
            index["recall"] = state.recall.snapshot()
    except Exception as e:
        index = {"status": "error", "error": f"{type(e).__name__}: {e}".splitlines()[0]}
    sessions = await _sessions(state)
    ready = (
        index["status"] == "ok"
        and all(m["ok"] for m in models.values())
        and sessions["status"] != "error"
    )
    limiter = state.limiter  # slots in use with no ask running would be a leak
    asks = {"in_flight": limiter.in_use, "running": len(limiter.tasks), "limit": limiter.limit}
    body = {"ready": ready, "index": index, "models": models, "sessions": sessions, "asks": asks}
    return JSONResponse(body, status_code=200 if ready else 503)


async def _sessions(state: ServingState) -> dict[str, Any]:
    """The sessions' database (agent/sessions.py): `unused` without an agent model."""
    path = state.settings.agent.session_db
    if state.llm_client is None:
        return {"status": "unused", "path": str(path)}
    try:
        await asyncio.to_thread(check_session_db, path)
    except SessionStoreError as e:
        return {"status": "error", "path": str(path), "error": str(e)}
    return {"status": "ok", "path": str(path)}
