"""`GET /v1/trajectories` (ad-hoc asks, filtered and paged) and `/v1/trajectories/{id}`."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query

from playscout.serving.media import ClipMedia, with_media
from playscout.serving.query import reject_unknown_query
from playscout.serving.routes import get_state
from playscout.serving.schemas import ErrorBody, TrajectoryDetail
from playscout.serving.state import ServingState
from playscout.serving.trajectories import (
    TrajectoryFilter,
    TrajectoryPage,
    list_trajectories,
    load_trajectory,
)

router = APIRouter(
    prefix="/v1/trajectories", tags=["trajectories"], dependencies=[Depends(reject_unknown_query)]
)
State = Annotated[ServingState, Depends(get_state)]
ERRORS: dict[int | str, dict[str, Any]] = {c: {"model": ErrorBody} for c in (401, 404, 422)}
Text = Annotated[str | None, Query(max_length=200)]


@router.get("", response_model=TrajectoryPage, responses=ERRORS)
def index(
    state: State,
    status: Text = None,
    tool: Text = None,
    q: Text = None,
    offset: Annotated[int, Query(ge=0)] = 0,
    limit: Annotated[int | None, Query(ge=1, le=10_000)] = None,
) -> TrajectoryPage:
    """Newest first, with a one-line summary each (`error`: why it did not answer); `total`
    counts every match, so paging with `offset` reaches them all."""
    cap = min(limit or state.settings.serving.list_limit, state.settings.serving.list_limit)
    where = TrajectoryFilter(status=status, tool=tool, q=q)
    return list_trajectories(state.settings.agent.trajectory_dir, where, offset, cap)


@router.get("/{trajectory_id}", response_model=TrajectoryDetail, responses=ERRORS)
def detail(state: State, trajectory_id: Annotated[str, Path(max_length=200)]) -> TrajectoryDetail:
    """Every event of one trajectory, its summary, and gold/verdict annotations if any."""
    detail = load_trajectory(state.settings.agent.trajectory_dir, trajectory_id)
    return with_media(detail, ClipMedia(state.runtime.corpus))
