"""The trajectory viewer: fixed static files from the package. Request paths pick among known
names only; nothing from the URL is joined onto a filesystem path."""

from __future__ import annotations

from importlib import resources
from typing import Annotated

from fastapi import APIRouter, HTTPException, Path
from fastapi.responses import HTMLResponse, Response

from playscout.agent.ids import valid_id

router = APIRouter(tags=["viewer"], include_in_schema=False)
_ASSETS = {"viewer.js": "text/javascript", "viewer.css": "text/css"}
_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self' data:; media-src 'self'; base-uri 'none'; frame-ancestors 'none'"
)


def _read(name: str) -> str:
    return resources.files("playscout.serving.viewer").joinpath(name).read_text("utf-8")


def _page(name: str) -> HTMLResponse:
    return HTMLResponse(_read(name), headers={"Content-Security-Policy": _CSP})


@router.get("/viewer")
def overview() -> HTMLResponse:
    return _page("index.html")


@router.get("/viewer/static/{name}")
def asset(name: str) -> Response:
    if name not in _ASSETS:
        raise HTTPException(404, f"no asset {name!r}")
    return Response(_read(name), media_type=_ASSETS[name], headers={"Cache-Control": "no-cache"})


@router.get("/viewer/{trajectory_id}")
def trajectory(trajectory_id: Annotated[str, Path(max_length=200)]) -> HTMLResponse:
    if not valid_id(trajectory_id):
        raise HTTPException(404, f"no trajectory {trajectory_id!r}")
    return _page("trajectory.html")
