"""`create_app(settings)`: the FastAPI application. Dependencies (backend, clients, tools, a
RunService) can be passed in; otherwise they are built from the settings at startup.

Every failure a client can cause is a 4xx, a failure of the agent's model a 502/503/504, a bug
a 500; each with the OpenAI error object (serving/errors.py, docs/api.md).
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
from collections.abc import AsyncIterator, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from playscout.agent.sessions import check_session_db
from playscout.clients.chat import ChatClient
from playscout.config import Settings
from playscout.errors import PlayscoutError
from playscout.runtime import Runtime
from playscout.search.backend_api import SearchBackend
from playscout.serving.browser_guard import BrowserGuardMiddleware
from playscout.serving.errors import STORAGE_CODES, describe
from playscout.serving.limits import AskLimiter
from playscout.serving.metrics import HttpMetricsMiddleware, RunMetrics
from playscout.serving.recall import RecallCollector, attach_sampler, detach_sampler
from playscout.serving.routes import (
    ask,
    chat,
    clips,
    docs,
    health,
    metrics,
    runs,
    search,
    trajectories,
    viewer,
)
from playscout.serving.run_service import Observable, RunService
from playscout.serving.security import (
    BearerAuthMiddleware,
    BodyLimitMiddleware,
    SafeHeadersMiddleware,
)
from playscout.serving.state import ServingState
from playscout.tools.tool import ModelSet, Tool

log = logging.getLogger(__name__)


def install_error_handlers(app: FastAPI) -> None:
    """Every exception becomes the OpenAI-shaped error body of `serving.errors.describe`."""

    async def handle(request: Request, exc: Exception) -> JSONResponse:
        error = describe(exc)
        if error.status == 500:
            log.exception("internal error", exc_info=exc)
        elif error.code in STORAGE_CODES:  # the operator's to fix: one line, no traceback
            log.error("%s %s: %s", request.method, request.url.path, error.message)
        return error.response()

    # OSError and sqlite3.Error are handled here, not by Starlette's last-resort handler
    # (which logs a traceback after ours): a full disk is one line in the log.
    for kind in (
        RequestValidationError,
        StarletteHTTPException,
        ValidationError,
        PlayscoutError,
        OSError,
        sqlite3.Error,
        Exception,
    ):
        app.add_exception_handler(kind, handle)


def _build_state(
    settings: Settings,
    backend: SearchBackend | None,
    llm_client: ChatClient | None,
    models: ModelSet | None,
    tools: Sequence[Tool] | None,
    run_service: RunService | None,
    tracer: Any,
) -> ServingState:
    runtime = Runtime.from_settings(
        settings,
        backend=backend,
        llm=llm_client,
        models=models,
        tools=tools,
        tracer=tracer,
        warm=True,  # a server searches many times: queries embedded where the vectors were made
    )
    state = ServingState(
        settings=runtime.settings,
        runtime=runtime,
        limiter=AskLimiter(settings.serving.max_concurrent_asks, settings.serving.retry_after_s),
        run_service=run_service,
        sports=list(runtime.require_backend().sports()),
    )
    if isinstance(run_service, Observable):  # batch runs feed /metrics too
        run_service.listeners.append(RunMetrics(state.metrics))
    state.recall = attach_sampler(runtime.require_backend(), runtime.settings.search)
    if state.recall is not None:
        state.metrics.registry.register(RecallCollector(state.recall))
    return state


def create_app(
    settings: Settings,
    *,
    backend: SearchBackend | None = None,
    llm_client: ChatClient | None = None,
    models: ModelSet | None = None,
    tools: Sequence[Tool] | None = None,
    run_service: RunService | None = None,
    api_key: str | None = None,
    tracer: Any = None,
) -> FastAPI:
    """`api_key` overrides the key read from `settings.api_key_env` (tests, embedding apps);
    `tracer` (OpenTelemetry) the OTLP one `settings.telemetry` configures."""

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
            if state.recall is not None:
                detach_sampler(state.backend, state.recall)
            cancelled = await state.drained()
            if cancelled:
                log.warning("shutdown: %d ask(s) interrupted and recorded as such", cancelled)

    app = FastAPI(
        title="playscout",
        summary="Agentic question answering over sports video and documents.",
        version="1",
        lifespan=lifespan,
        docs_url=None,  # served from local files by routes/docs.py
        redoc_url=None,
    )
    app.state.serving = _build_state(
        settings, backend, llm_client, models, tools, run_service, tracer
    )
    if app.state.serving.llm_client is not None:  # sessions are the llm policy's
        check_session_db(settings.agent.session_db, thorough=True)  # not at the first ask
    settings.agent.trajectory_dir.mkdir(parents=True, exist_ok=True)
    install_error_handlers(app)
    modules = (ask, chat, search, trajectories, runs, clips, health, metrics, viewer, docs)
    for module in modules:
        app.include_router(module.router)
    templates = [route for module in modules for route in module.router.routes]
    key = api_key if api_key is not None else settings.serving.api_key()
    app.add_middleware(  # inside the key check: a request without the key is a 401 first
        BrowserGuardMiddleware,
        keyless=not key,
        bind_host=settings.serving.host,
        allowed_hosts=settings.serving.allowed_hosts,
    )
    app.add_middleware(BearerAuthMiddleware, api_key=key)
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.serving.max_body_bytes)
    app.add_middleware(HttpMetricsMiddleware, metrics=app.state.serving.metrics, routes=templates)
    app.add_middleware(SafeHeadersMiddleware)  # added last: outermost, every response has them
    return app


def app_from_env() -> Any:
    """`uvicorn --factory playscout.serving.app:app_from_env` with PLAYSCOUT_ environment (PLAYSCOUT_<SECTION>__<KEY>)."""
    return create_app(Settings.load())
