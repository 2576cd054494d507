"""`POST /v1/ask` (blocking) and `POST /v1/ask/stream` (server-sent events)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import StreamingResponse

from playscout.serving.asks import AskRun, prepare
from playscout.serving.query import reject_unknown_query
from playscout.serving.routes import get_state
from playscout.serving.schemas import AskResponse, ErrorBody
from playscout.serving.state import ServingState
from playscout.serving.streaming import start_stream
from playscout.usecases.ask import AskRequest

router = APIRouter(prefix="/v1", tags=["ask"], dependencies=[Depends(reject_unknown_query)])
State = Annotated[ServingState, Depends(get_state)]
ERRORS: dict[int | str, dict[str, object]] = {
    c: {"model": ErrorBody} for c in (400, 401, 413, 422, 429, 503)
}


@router.post("/ask", response_model=AskResponse, responses=ERRORS)
async def ask(body: AskRequest, request: Request, state: State) -> AskResponse:
    """Answer one question; returns when the agent is done. A client that hangs up cancels
    the run."""
    return await AskRun(state, prepare(state, body)).result_unless_disconnected(request.receive)


@router.post(
    "/ask/stream",
    responses={200: {"content": {"text/event-stream": {}}}, **ERRORS},
    response_class=StreamingResponse,
)
async def ask_stream(body: AskRequest, state: State) -> StreamingResponse:
    """Events (`run_start`, `model_call`, `tool_call`, `observation`, `final_answer`) as they
    happen, then `result` (the /v1/ask body) or `error`."""
    return start_stream(state, prepare(state, body))
