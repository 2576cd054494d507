"""`/docs` (Swagger UI) and `/redoc` from local files, so they render offline. FastAPI's own
pages load their scripts from a CDN, which left `/docs` blank without internet; the same
scripts ship in the `fastapi-offline` wheel, and are served here by fixed names only."""

from __future__ import annotations

from importlib import resources

from fastapi import APIRouter, HTTPException, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse, Response

router = APIRouter(include_in_schema=False)
ASSET_PACKAGE = "fastapi_offline"
_ASSETS = {
    "swagger-ui-bundle.js": "text/javascript",
    "swagger-ui.css": "text/css",
    "redoc.standalone.js": "text/javascript",
    "favicon.png": "image/png",
}


def _static(request: Request) -> str:
    return f"{request.scope.get('root_path', '')}/docs/static"


def _openapi_url(request: Request) -> str:
    return f"{request.scope.get('root_path', '')}{request.app.openapi_url}"


@router.get("/docs")
def swagger_ui(request: Request) -> HTMLResponse:
    static = _static(request)
    return get_swagger_ui_html(
        openapi_url=_openapi_url(request),
        title=f"{request.app.title} - Swagger UI",
        swagger_js_url=f"{static}/swagger-ui-bundle.js",
        swagger_css_url=f"{static}/swagger-ui.css",
        swagger_favicon_url=f"{static}/favicon.png",
    )


@router.get("/redoc")
def redoc(request: Request) -> HTMLResponse:
    static = _static(request)
    return get_redoc_html(
        openapi_url=_openapi_url(request),
        title=f"{request.app.title} - ReDoc",
        redoc_js_url=f"{static}/redoc.standalone.js",
        redoc_favicon_url=f"{static}/favicon.png",
        with_google_fonts=False,
    )


@router.get("/docs/static/{name}")
def asset(name: str) -> Response:
    if name not in _ASSETS:
        raise HTTPException(404, f"no asset {name!r}")
    data = resources.files(ASSET_PACKAGE).joinpath("static", name).read_bytes()
    return Response(data, media_type=_ASSETS[name], headers={"Cache-Control": "max-age=86400"})
