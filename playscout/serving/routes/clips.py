"""`GET /v1/clips/{id}` (the file, with range requests), `/thumbnail` and `/frames?t=`."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query
from fastapi.responses import FileResponse, Response

from playscout.media import MediaError
from playscout.serving.media import MEDIA_TYPES, ClipMedia, UnknownClip
from playscout.serving.query import reject_unknown_query
from playscout.serving.routes import get_state
from playscout.serving.schemas import ErrorBody
from playscout.serving.state import ServingState

router = APIRouter(prefix="/v1/clips", tags=["clips"], dependencies=[Depends(reject_unknown_query)])
State = Annotated[ServingState, Depends(get_state)]
ERRORS: dict[int | str, dict[str, Any]] = {c: {"model": ErrorBody} for c in (401, 404, 422)}
ClipId = Annotated[str, Path(max_length=200)]
Sport = Annotated[str | None, Query(max_length=40, description="Faster when given.")]
CACHE = {"Cache-Control": "private, max-age=3600"}


def _media(state: ServingState) -> ClipMedia:
    return ClipMedia(state.runtime.corpus)


def _decoded(call: Any, clip_id: str) -> Any:
    try:
        return call()
    except MediaError as e:  # a listed file that does not decode: not servable
        raise UnknownClip(f"clip {clip_id!r}: {e}") from None


@router.head("/{clip_id}", include_in_schema=False)
@router.get(
    "/{clip_id}",
    response_class=FileResponse,
    responses={200: {"content": {"video/mp4": {}}}, 206: {"description": "A byte range"}, **ERRORS},
)
def clip(state: State, clip_id: ClipId, sport: Sport = None) -> FileResponse:
    """The clip's video file; honours `Range` (206), so players can seek."""
    path = _media(state).path(clip_id, sport)
    return FileResponse(path, media_type=MEDIA_TYPES[path.suffix.lower()], headers=CACHE)


@router.get("/{clip_id}/thumbnail", responses={200: {"content": {"image/jpeg": {}}}, **ERRORS})
def thumbnail(state: State, clip_id: ClipId, sport: Sport = None) -> Response:
    """The clip's middle frame, 240 px on its long side."""
    media = _media(state)
    jpeg = _decoded(lambda: media.thumbnail(clip_id, sport), clip_id)
    return Response(jpeg, media_type="image/jpeg", headers=CACHE)


@router.get("/{clip_id}/frames", responses={200: {"content": {"image/jpeg": {}}}, **ERRORS})
def frame(
    state: State,
    clip_id: ClipId,
    t: Annotated[float, Query(ge=0, le=86_400, description="Seconds into the clip file.")],
    sport: Sport = None,
    long_side: Annotated[int | None, Query(ge=16, le=2048)] = None,
    quality: Annotated[int | None, Query(ge=1, le=100)] = None,
) -> Response:
    """The frame a video_qa call recorded at `t`, as the VLM got it (the trajectory gives
    `t`, `long_side` and `quality`; the server's QA settings are the defaults)."""
    qa = state.settings.qa
    media = _media(state)
    time, jpeg = _decoded(
        lambda: media.frame(
            clip_id, sport, t, long_side or qa.frame_long_side, quality or qa.jpeg_quality
        ),
        clip_id,
    )
    return Response(jpeg, media_type="image/jpeg", headers={**CACHE, "X-Frame-Time": f"{time:g}"})
