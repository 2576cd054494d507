"""`GET /v1/search/documents` and `/v1/search/videos`: the agent's search tools by hand, the
query parameters generated from the tools' argument models (tools/options.py), one to one."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query

from playscout.config import Mode
from playscout.serving.asks import AskRejected
from playscout.serving.query import reject_unknown_query
from playscout.serving.routes import get_state
from playscout.serving.schemas import ErrorBody
from playscout.serving.state import ServingState
from playscout.tools.options import ArgOption, arg_options, given
from playscout.tools.search import (
    DocumentSearchResult,
    VideoSearchResult,
    search_documents,
    search_videos,
)
from playscout.tools.search_args import SearchDocumentsArgs, SearchVideosArgs
from playscout.tools.tool import ToolArgs, ToolContext, ToolResult
from playscout.usecases.defaults import mode_of, sport_of

router = APIRouter(
    prefix="/v1/search", tags=["search"], dependencies=[Depends(reject_unknown_query)]
)
State = Annotated[ServingState, Depends(get_state)]
ERRORS: dict[int | str, dict[str, Any]] = {c: {"model": ErrorBody} for c in (400, 401, 422)}
MAX_VALUES = 100  # values one list parameter may repeat
MAX_CHARS = 2000  # characters one text parameter may hold
_KW = inspect.Parameter.KEYWORD_ONLY


def _context(state: ServingState, sport: str | None, mode: Mode | None) -> ToolContext:
    """What the request leaves out, the server's defaults choose, as for an ask."""
    serving = state.settings.serving
    sport = sport_of(sport, serving, state.sports)
    if sport not in state.sports:
        raise AskRejected(
            f"unknown sport {sport!r}; this index has: {', '.join(state.sports) or 'none'}"
        )
    return state.runtime.tool_context(sport, mode_of(mode, serving))


def _query(opt: ArgOption) -> inspect.Parameter:
    """The query parameter of one tool argument: repeated for a list, bounded either way."""
    inner: Any = list.__class_getitem__(opt.kind) if opt.many else opt.kind
    limit = MAX_VALUES if opt.many else MAX_CHARS if opt.kind is str else None
    annotation: Any = Annotated[
        inner if opt.default is not None else inner | None,
        Query(description=opt.help, max_length=limit),
    ]
    return inspect.Parameter(opt.name, _KW, default=opt.default, annotation=annotation)


def _endpoint(
    tool: Callable[[ToolContext, Any], ToolResult], args: type[ToolArgs], *, modes: bool
) -> Callable[..., Any]:
    """The route function of `tool`: `sport` (and `mode` where the tool searches clips), then
    one query parameter per argument; the body is the tool's typed result."""

    def endpoint(
        state: ServingState, sport: str | None = None, mode: Mode | None = None, **values: Any
    ) -> Any:
        ctx = _context(state, sport, mode)
        return tool(ctx, args.model_validate(given(values))).data

    sport_doc = "A sport present in the index [default: the server's, else the index's first]."
    params = [
        inspect.Parameter("state", _KW, annotation=State),
        inspect.Parameter(
            "sport",
            _KW,
            default=None,
            annotation=Annotated[str | None, Query(description=sport_doc)],
        ),
    ]
    if modes:
        mode_doc = "default | oracle [default: the server's, `serve --mode`]."
        mode_type = Annotated[Mode | None, Query(description=mode_doc)]
        params.append(inspect.Parameter("mode", _KW, default=None, annotation=mode_type))
    params += [_query(opt) for opt in arg_options(args)]
    endpoint.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    return endpoint


router.get(
    "/documents",
    response_model=DocumentSearchResult,
    responses=ERRORS,
    name="documents",
    summary="Documents",
    description="Hybrid search over reports and statistics (the `search_documents` tool).",
)(_endpoint(search_documents, SearchDocumentsArgs, modes=False))
router.get(
    "/videos",
    response_model=VideoSearchResult,
    responses=ERRORS,
    name="videos",
    summary="Videos",
    description="Clip search (the `search_videos` tool); oracle mode searches ground-truth "
    "captions.",
)(_endpoint(search_videos, SearchVideosArgs, modes=True))
