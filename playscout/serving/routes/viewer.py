"""The run browser: fixed static files from the package. Request paths pick among known names
only; nothing from the URL is joined onto a filesystem path. The pages are one HTML shell with
hash routes (`/viewer#/runs/RUN`), so the same files also work opened from disk in an export."""

from __future__ import annotations

from importlib import resources
from typing import Annotated

from fastapi import APIRouter, HTTPException, Path
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from playscout.agent.ids import valid_id

router = APIRouter(tags=["viewer"], include_in_schema=False)
ASSETS = {"viewer.js": "text/javascript", "viewer.css": "text/css"}
_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self' data:; media-src 'self'; base-uri 'none'; frame-ancestors 'none'"
)


def read_asset(name: str) -> str:
    return resources.files("playscout.serving.viewer").joinpath(name).read_text("utf-8")


@router.get("/")
def home() -> RedirectResponse:
    """The address `serve` prints leads somewhere a person can read: the run browser (the API
    lives under /v1, its docs at /docs)."""
    return RedirectResponse("/viewer", status_code=307)


@router.get("/viewer")
def overview() -> HTMLResponse:
    return HTMLResponse(read_asset("index.html"), headers={"Content-Security-Policy": _CSP})


@router.get("/viewer/static/{name}")
def asset(name: str) -> Response:
    if name not in ASSETS:
        raise HTTPException(404, f"no asset {name!r}")
    return Response(
        read_asset(name), media_type=ASSETS[name], headers={"Cache-Control": "no-cache"}
    )


@router.get("/viewer/{trajectory_id}")
def trajectory(trajectory_id: Annotated[str, Path(max_length=200)]) -> RedirectResponse:
    """Old links to one ask's trajectory land on its page in the browser."""
    if not valid_id(trajectory_id):
        raise HTTPException(404, f"no trajectory {trajectory_id!r}")
    return RedirectResponse(f"/viewer#/asks/{trajectory_id}", status_code=307)
