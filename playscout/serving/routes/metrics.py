"""`GET /metrics`: Prometheus text format (serving/metrics.py lists the series)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.responses import Response

from playscout.serving.metrics import exposition
from playscout.serving.routes import get_state
from playscout.serving.state import ServingState

router = APIRouter(tags=["health"])
State = Annotated[ServingState, Depends(get_state)]


@router.get("/metrics", response_class=Response)
def metrics(state: State) -> Response:
    """Ask and tool latency, tokens, asks in flight, 429s and error responses by status."""
    body, content_type = exposition(state.metrics)
    return Response(body, media_type=content_type)
