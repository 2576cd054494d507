"""`create_app(settings)`: the FastAPI application. Dependencies (backend, clients, tools, a
RunService) can be passed in; otherwise they are built from the settings at startup.

Every failure a client can cause is a 4xx with a one-line `{"error": ...}`; a 500 means a bug.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from playscout.clients.chat import ChatClient
from playscout.config import Settings
from playscout.errors import PlayscoutError, one_line
from playscout.eval.run_service import RunService
from playscout.runtime import Runtime
from playscout.search.backend_api import SearchBackend
from playscout.serving.asks import AskCancelled, AskRejected
from playscout.serving.limits import AskLimiter, Overloaded
from playscout.serving.routes import ask, health, runs, search, trajectories, viewer
from playscout.serving.security import BearerAuthMiddleware, BodyLimitMiddleware
from playscout.serving.state import ServingState
from playscout.serving.trajectories import UnknownTrajectory
from playscout.tools.tool import ModelSet, Tool

log = logging.getLogger(__name__)


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(
        {"error": one_line(message, limit=300)}, status_code=status, headers=headers
    )


def _validation_message(exc: RequestValidationError) -> tuple[int, str]:
    errors = exc.errors()
    if not errors:
        return 422, "invalid request"
    first = errors[0]
    if first.get("type") == "json_invalid":
        return 400, "malformed JSON body"
    loc = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or "request"
    more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
    return 422, f"{loc}: {first.get('msg', 'invalid')}{more}"


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        return _error(*_validation_message(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        return _error(exc.status_code, str(exc.detail), getattr(exc, "headers", None))

    @app.exception_handler(Overloaded)
    async def _busy(_: Request, exc: Overloaded) -> JSONResponse:
        return _error(429, str(exc), {"Retry-After": str(exc.retry_after_s)})

    @app.exception_handler(UnknownTrajectory)
    async def _missing(_: Request, exc: UnknownTrajectory) -> JSONResponse:
        return _error(404, str(exc))

    @app.exception_handler(AskCancelled)
    async def _cancelled(_: Request, exc: AskCancelled) -> JSONResponse:
        return _error(exc.status_code, str(exc))

    @app.exception_handler(AskRejected)
    async def _rejected(_: Request, exc: AskRejected) -> JSONResponse:
        return _error(400, str(exc))

    @app.exception_handler(PlayscoutError)
    async def _playscout(_: Request, exc: PlayscoutError) -> JSONResponse:
        if exc.user_error:  # ToolError, SearchError, TrajectoryError, ...
            return _error(400, str(exc))
        log.exception("internal error", exc_info=exc)
        return _error(500, f"internal error ({type(exc).__name__}); see the server log")

    @app.exception_handler(ValidationError)
    async def _args(_: Request, exc: ValidationError) -> JSONResponse:
        first = exc.errors()[0]  # tool arguments built from query parameters
        where = ".".join(str(p) for p in first["loc"]) or "arguments"
        return _error(422, f"{where}: {first['msg']}")

    @app.exception_handler(Exception)
    async def _other(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error")
        return _error(500, f"internal error ({type(exc).__name__}); see the server log")


def _build_state(
    settings: Settings,
    backend: SearchBackend | None,
    llm_client: ChatClient | None,
    models: ModelSet | None,
    tools: Sequence[Tool] | None,
    run_service: RunService | None,
) -> ServingState:
    runtime = Runtime.from_settings(
        settings, backend=backend, llm=llm_client, models=models, tools=tools
    )
    return ServingState(
        settings=runtime.settings,
        runtime=runtime,
        limiter=AskLimiter(settings.serving.max_concurrent_asks, settings.serving.retry_after_s),
        run_service=run_service,
        sports=list(runtime.require_backend().sports()),
    )


def create_app(
    settings: Settings,
    *,
    backend: SearchBackend | None = None,
    llm_client: ChatClient | None = None,
    models: ModelSet | None = None,
    tools: Sequence[Tool] | None = None,
    run_service: RunService | None = None,
    api_key: str | None = None,
) -> FastAPI:
    """`api_key` overrides the key read from `settings.api_key_env` (tests, embedding apps)."""

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        state: ServingState = app.state.serving
        async with contextlib.AsyncExitStack() as stack:
            if state.llm_client is not None:
                from playscout.agent import session_store

                state.checkpointer = await stack.enter_async_context(
                    session_store(settings.agent.session_db)
                )
            yield
            cancelled = await state.limiter.drain(settings.serving.shutdown_grace_s)
            if cancelled:
                log.warning("shutdown: %d ask(s) interrupted and recorded as such", cancelled)

    app = FastAPI(
        title="playscout",
        summary="Agentic question answering over sports video and documents.",
        version="1",
        lifespan=lifespan,
    )
    app.state.serving = _build_state(settings, backend, llm_client, models, tools, run_service)
    settings.agent.trajectory_dir.mkdir(parents=True, exist_ok=True)
    install_error_handlers(app)
    for module in (ask, search, trajectories, runs, health, viewer):
        app.include_router(module.router)
    key = api_key if api_key is not None else settings.serving.api_key()
    app.add_middleware(BearerAuthMiddleware, api_key=key)
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.serving.max_body_bytes)
    return app


def app_from_env() -> Any:
    """`uvicorn --factory playscout.serving.app:app_from_env` with PLAYSCOUT_ environment (PLAYSCOUT_<SECTION>__<KEY>)."""
    return create_app(Settings.load())
