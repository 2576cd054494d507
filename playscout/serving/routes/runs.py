"""`POST /v1/runs` and `GET /v1/runs/{id}`: batch runs through a pluggable RunService."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Path

from playscout.agent.ids import valid_id
from playscout.eval.run_service import NOT_AVAILABLE, RunRequest, RunStatus
from playscout.serving.query import reject_unknown_query
from playscout.serving.routes import get_state
from playscout.serving.schemas import ErrorBody
from playscout.serving.state import ServingState

router = APIRouter(prefix="/v1/runs", tags=["runs"], dependencies=[Depends(reject_unknown_query)])
State = Annotated[ServingState, Depends(get_state)]
ERRORS: dict[int | str, dict[str, Any]] = {c: {"model": ErrorBody} for c in (401, 404, 422, 501)}


@router.post("", response_model=RunStatus, status_code=202, responses=ERRORS)
def submit(req: RunRequest, state: State) -> RunStatus:
    """Start a batch run; poll it with GET /v1/runs/{id}."""
    if state.run_service is None:
        raise HTTPException(501, NOT_AVAILABLE)
    return state.run_service.submit(req)


@router.get("/{run_id}", response_model=RunStatus, responses=ERRORS)
def get(state: State, run_id: Annotated[str, Path(max_length=200)]) -> RunStatus:
    if state.run_service is None:
        raise HTTPException(501, NOT_AVAILABLE)
    status = state.run_service.get(run_id) if valid_id(run_id) else None
    if status is None:
        raise HTTPException(404, f"no run {run_id!r}")
    return status
