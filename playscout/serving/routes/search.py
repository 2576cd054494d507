"""`GET /v1/search/documents` and `/v1/search/videos`: the agent's search tools by hand, the
query parameters mapping one to one onto the tools' arguments."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query

from playscout.config import DEFAULT_MODE, Mode
from playscout.serving.asks import AskRejected
from playscout.serving.query import reject_unknown_query
from playscout.serving.routes import get_state
from playscout.serving.schemas import ErrorBody
from playscout.serving.state import ServingState
from playscout.tools.search import (
    DocumentSearchResult,
    SearchDocumentsArgs,
    SearchVideosArgs,
    VideoSearchResult,
    search_documents,
    search_videos,
)
from playscout.tools.tool import ToolContext

router = APIRouter(
    prefix="/v1/search", tags=["search"], dependencies=[Depends(reject_unknown_query)]
)
State = Annotated[ServingState, Depends(get_state)]
ERRORS: dict[int | str, dict[str, Any]] = {c: {"model": ErrorBody} for c in (400, 401, 422)}
Ids = Annotated[list[str] | None, Query(max_length=100)]
Text = Annotated[str, Query(max_length=2000)]


def _context(state: ServingState, sport: str, mode: Mode = DEFAULT_MODE) -> ToolContext:
    if sport not in state.sports:
        raise AskRejected(
            f"unknown sport {sport!r}; this index has: {', '.join(state.sports) or 'none'}"
        )
    return state.runtime.tool_context(sport, mode)


def _drop_none(**kwargs: Any) -> dict[str, Any]:
    return {k: v for k, v in kwargs.items() if v not in (None, [])}


@router.get("/documents", response_model=DocumentSearchResult, responses=ERRORS)
def documents(
    state: State,
    sport: str = "basketball",
    query: Text = "",
    game_ids: Ids = None,
    doc_type: Ids = None,
    doc_ids: Ids = None,
    teams: Ids = None,
    players: Ids = None,
    season: Annotated[str | None, Query(max_length=20)] = None,
    date: Annotated[str | None, Query(max_length=40)] = None,
) -> DocumentSearchResult:
    """Hybrid search over reports and statistics (the `search_documents` tool)."""
    ctx = _context(state, sport, "default")
    args = SearchDocumentsArgs.model_validate(
        _drop_none(
            query=query,
            game_ids=game_ids,
            doc_type=doc_type,
            doc_ids=doc_ids,
            teams=teams,
            players=players,
            season=season,
            date=date,
        )
    )
    data: DocumentSearchResult = search_documents(ctx, args).data
    return data


@router.get("/videos", response_model=VideoSearchResult, responses=ERRORS)
def videos(
    state: State,
    sport: str = "basketball",
    mode: Mode = DEFAULT_MODE,
    query: Text = "",
    game_ids: Ids = None,
    quarter: Annotated[list[int] | None, Query(max_length=10)] = None,
    teams: Ids = None,
    players: Ids = None,
    temporal_boundary: Annotated[str | None, Query(max_length=40)] = None,
    video_ids: Ids = None,
) -> VideoSearchResult:
    """Clip search (the `search_videos` tool); oracle mode searches ground-truth captions."""
    ctx = _context(state, sport, mode)
    args = SearchVideosArgs.model_validate(
        _drop_none(
            query=query,
            game_ids=game_ids,
            quarter=quarter,
            teams=teams,
            players=players,
            temporal_boundary=temporal_boundary,
            video_ids=video_ids,
        )
    )
    data: VideoSearchResult = search_videos(ctx, args).data
    return data
