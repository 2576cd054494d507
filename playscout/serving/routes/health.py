"""`/healthz` (the process answers) and `/readyz` (the index is open and every configured model
endpoint answers `/models`; unconfigured endpoints are reported as such, not as failures). The
readiness body also counts asks: slots in use, runs in flight, and the limit."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import httpx
from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse

from playscout.config import ModelEndpoint
from playscout.serving.routes import get_state
from playscout.serving.state import ServingState

router = APIRouter(tags=["health"])
State = Annotated[ServingState, Depends(get_state)]


@router.get("/healthz")
def healthz() -> dict[str, str]:
    return {"status": "ok"}


async def probe(client: httpx.AsyncClient, ep: ModelEndpoint) -> dict[str, Any]:
    if not ep.configured:
        return {"status": "not configured"}
    url = ep.base_url.rstrip("/") + "/models"
    try:
        r = await client.get(url)
    except httpx.HTTPError as e:
        return {"status": "unreachable", "url": url, "error": type(e).__name__}
    if r.status_code != 200:
        return {"status": "unhealthy", "url": url, "http": r.status_code}
    return {"status": "ok", "url": url}


@router.get("/readyz")
async def readyz(state: State) -> JSONResponse:
    s = state.settings
    endpoints = {
        "agent": s.agent.llm,
        "document_qa": s.qa.document_llm,
        "vlm": s.qa.vlm,
        "caption_llm": s.qa.caption_llm,
    }
    async with httpx.AsyncClient(timeout=s.serving.readiness_timeout_s) as client:
        results = await asyncio.gather(*(probe(client, ep) for ep in endpoints.values()))
    models = dict(zip(endpoints, results, strict=True))
    try:
        sports = await asyncio.to_thread(state.backend.sports)
        index: dict[str, Any] = {"status": "ok", "sports": sports}
    except Exception as e:
        index = {"status": "error", "error": f"{type(e).__name__}: {e}".splitlines()[0]}
    ready = index["status"] == "ok" and all(
        m["status"] in ("ok", "not configured") for m in models.values()
    )
    limiter = state.limiter  # slots in use with no ask running would be a leak
    asks = {"in_flight": limiter.in_use, "running": len(limiter.tasks), "limit": limiter.limit}
    body = {"ready": ready, "index": index, "models": models, "asks": asks}
    return JSONResponse(body, status_code=200 if ready else 503)
