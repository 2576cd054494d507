"""`POST /v1/chat/completions` and `GET /v1/models`: the OpenAI-compatible facade
(serving/chat.py says what maps to what)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import JSONResponse, Response

from playscout.serving.asks import TRAJECTORY_HEADER, AskRun, prepare
from playscout.serving.chat import (
    IGNORED_HEADER,
    ChatCompletion,
    ChatCompletionRequest,
    ModelCard,
    ModelList,
    UnknownModel,
    ask_request,
    chat_chunks,
    completion,
    unknown_model,
)
from playscout.serving.choices import AGENT_MODEL, aliases, checks, listed
from playscout.serving.query import reject_unknown_query
from playscout.serving.routes import get_state
from playscout.serving.schemas import ErrorBody
from playscout.serving.state import ServingState
from playscout.serving.streaming import start_stream

router = APIRouter(prefix="/v1", tags=["openai"], dependencies=[Depends(reject_unknown_query)])
State = Annotated[ServingState, Depends(get_state)]
ERRORS: dict[int | str, dict[str, Any]] = {
    c: {"model": ErrorBody} for c in (400, 401, 404, 413, 422, 429, 500, 502, 503, 504)
}


@router.get("/models", response_model=ModelList, responses=ERRORS)
def models(state: State) -> ModelList:
    """`playscout-agent` (the server's default sport, mode and policy) and the aliases this
    server can run, one per sport, mode and policy."""
    return ModelList(data=[ModelCard.of(name, c) for name, c in listed(state).items()])


@router.get("/models/{model}", response_model=ModelCard, responses=ERRORS)
def model(state: State, name: Annotated[str, Path(alias="model", max_length=200)]) -> ModelCard:
    """One model; an alias this server cannot run is a 404 that says why (`playscout-agent`
    is always there: an ask with it that cannot run is refused with the reason)."""
    choice = aliases(state).get(name)
    if choice is None:
        raise unknown_model(name)
    failed = [c for c in checks(state, choice) if c.failed]
    if failed and name != AGENT_MODEL:
        raise UnknownModel(
            f"the model {name!r} cannot run on this server: {failed[0].detail}", "model_not_found"
        )
    return ModelCard.of(name, choice)


@router.post(
    "/chat/completions",
    response_model=ChatCompletion,
    responses={200: {"content": {"text/event-stream": {}}}, **ERRORS},
)
async def chat_completions(body: ChatCompletionRequest, request: Request, state: State) -> Response:
    """One ask as an OpenAI chat completion; `stream: true` sends the agent's progress as
    chunks and ends with `data: [DONE]`."""
    ask, ignored = ask_request(body, aliases(state))
    req = prepare(state, ask)
    headers = {IGNORED_HEADER: ", ".join(ignored)} if ignored else {}
    if body.stream:
        include_usage = body.stream_options is not None and body.stream_options.include_usage
        return start_stream(state, req, chat_chunks(include_usage, body.model), headers)
    run = AskRun(state, req)
    headers[TRAJECTORY_HEADER] = run.trajectory_id
    resp = await run.result_unless_disconnected(request.receive)
    return JSONResponse(completion(resp, body.model).model_dump(mode="json"), headers=headers)
