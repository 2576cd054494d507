"""Every error the API answers has one shape, OpenAI's:
`{"error": {"message": "<one line>", "type": "...", "code": "...", "param": null}}`.

The same object is the body of a 4xx/5xx response, the data of the native stream's `error`
event and the last chunk of a streamed chat completion, so one client-side check reads them
all, and the OpenAI SDK raises its typed errors with our message.

When the agent's model fails, an ask is a 5xx chosen by the cause (docs/api.md):
503 the model server cannot be reached, or is overloaded (429 after retries);
504 it did not answer in time; 502 it answered with an error (5xx, an unknown model name, a
rejected request) or with something that is not a chat completion.
"""

from __future__ import annotations

import errno
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from playscout.clients.chat import ModelBadResponse, ModelError, ModelRejected, ModelTimeout
from playscout.errors import PlayscoutError, is_user_error, one_line
from playscout.runtime.preflight import PreflightError
from playscout.storage import StorageError, storage_error_in

MODEL_ERROR = "model_error"  # the `type` of every failure of the agent's model
TYPES = {
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    499: "cancelled",
}
CODES = {
    400: "bad_request",
    401: "invalid_api_key",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "request_too_large",
    415: "unsupported_media_type",
    421: "misdirected_request",
    422: "invalid_value",
    429: "too_many_asks",
    499: "client_closed_request",
    500: "internal_error",
    501: "not_implemented",
    503: "unavailable",
}

STORAGE_FULL = "storage_full"  # 507: the disk or quota under a write path is full
STORAGE_UNAVAILABLE = "storage_unavailable"  # 503: read-only, or no permission to write
STORAGE_CODES = frozenset({STORAGE_FULL, STORAGE_UNAVAILABLE})

PREFLIGHT_CODES = {
    "sport": "unknown_sport",
    "agent": "policy_unavailable",
    "clips": "mode_unavailable",
    "judge": "judge_unavailable",
}
"""The error code of a preflight refusal (runtime/preflight.py), by the failed check's name;
any other check is a tool without its model or media: `tool_unavailable`."""
PREFLIGHT_CHARS = 4000  # a refusal names every reason (one per sport, tool, model)


@dataclass(frozen=True)
class ApiError:
    status: int
    message: str
    code: str
    type: str
    param: str | None = None
    headers: dict[str, str] = field(default_factory=dict)

    def body(self) -> dict[str, Any]:
        return {
            "error": {
                "message": self.message,
                "type": self.type,
                "code": self.code,
                "param": self.param,
            }
        }

    def response(self) -> JSONResponse:
        return JSONResponse(self.body(), status_code=self.status, headers=self.headers or None)


def api_error(
    status: int,
    message: str,
    code: str | None = None,
    *,
    param: str | None = None,
    headers: Mapping[str, str] | None = None,
    type: str | None = None,
    limit: int = 300,
) -> ApiError:
    """The error for `status`; type and code default by status (4xx invalid_request_error).
    The message is one line of at most `limit` characters."""
    kind = (
        type or TYPES.get(status) or ("invalid_request_error" if status < 500 else "server_error")
    )
    return ApiError(
        status=status,
        message=one_line(_redact(message), limit=limit) or "error",
        code=code or CODES.get(status) or f"http_{status}",
        type=kind,
        param=param,
        headers=dict(headers or {}),
    )


def _redact(text: str) -> str:
    """No `user:password@` of a model URL reaches a client."""
    return re.sub(r"://[^/@\s]+@", "://***@", text)


class RequestError(PlayscoutError, ValueError):
    """A request this server will not run, with its HTTP status and error code."""

    status_code = 400

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


class RunFailed(PlayscoutError, RuntimeError):
    """An ask whose agent run ended with status error: `cause` is what ended it (a
    ModelError from the client, or a bug). The reason is also in the trajectory."""

    def __init__(self, message: str, trajectory_id: str, cause: BaseException | None) -> None:
        super().__init__(message)
        self.trajectory_id = trajectory_id
        self.cause = cause


def model_status(error: ModelError) -> tuple[int, str]:
    """(HTTP status, error code) for a failure of the agent's model."""
    upstream = error.status
    if isinstance(error, ModelTimeout) or upstream in (408, 504):
        return 504, "model_timeout"
    if isinstance(error, ModelBadResponse):
        return 502, "model_bad_response"
    if isinstance(error, ModelRejected):
        if upstream == 404:
            return 502, "model_not_found"
        if upstream in (401, 403):
            return 502, "model_auth_failed"
        return 502, "model_rejected"
    if upstream == 429:
        return 503, "model_overloaded"
    if upstream is not None:  # 5xx after the retries
        return 502, "model_server_error"
    return 503, "model_unreachable"  # no answer at all: refused, reset, DNS


def _model_failure(error: ModelError, trajectory_id: str | None) -> ApiError:
    status, code = model_status(error)
    where = f" (trajectory {trajectory_id})" if trajectory_id else ""
    headers = {}
    retry_after = getattr(error, "retry_after_s", None)
    if status == 503 and retry_after:
        headers["Retry-After"] = str(max(1, round(retry_after)))
    return api_error(
        status, f"the agent's model failed: {error}{where}", code, type=MODEL_ERROR, headers=headers
    )


def storage_failure(error: StorageError) -> ApiError:
    """A write the server's disk refused (trajectories, runs, sessions, verdicts): the user's
    operator fixes it, so it says where and why, and is never an `internal_error`."""
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        return api_error(507, f"the server cannot store this: {error}", STORAGE_FULL)
    return api_error(503, f"the server cannot store this: {error}", STORAGE_UNAVAILABLE)


def _validation(exc: RequestValidationError) -> ApiError:
    errors = exc.errors()
    if not errors:
        return api_error(422, "invalid request")
    first = errors[0]
    if first.get("type") == "json_invalid":
        return api_error(400, "malformed JSON body", "invalid_json")
    loc = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or "request"
    more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
    return api_error(422, f"{loc}: {first.get('msg', 'invalid')}{more}", param=loc)


def describe(exc: BaseException) -> ApiError:
    """The API error for any exception a route or a run can raise; 500 for a bug."""
    if isinstance(exc, RunFailed) and isinstance(exc.cause, ModelError):
        return _model_failure(exc.cause, exc.trajectory_id)
    if isinstance(exc, ModelError):
        return _model_failure(exc, None)
    if isinstance(exc, StorageError):
        return storage_failure(exc)
    if isinstance(exc, RunFailed):
        if (disk := storage_error_in(exc.cause)) is not None:
            return storage_failure(disk)
        if exc.cause is not None and is_user_error(exc.cause):  # a session db that broke
            return describe(exc.cause)
        return api_error(500, str(exc), "agent_error")
    if isinstance(exc, RequestValidationError):
        return _validation(exc)
    if isinstance(exc, PreflightError):  # the CLI's refusal, line for line, every reason
        name = exc.check.name if exc.check is not None else ""
        code = PREFLIGHT_CODES.get(name, "tool_unavailable")
        return api_error(400, str(exc), code, limit=PREFLIGHT_CHARS)
    if isinstance(exc, StarletteHTTPException):
        return api_error(exc.status_code, str(exc.detail), headers=exc.headers)
    if isinstance(exc, ValidationError):  # tool arguments built from query parameters
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "arguments"
        return api_error(422, f"{where}: {first['msg']}", param=where)
    if is_user_error(exc):  # AskRejected, Overloaded, ToolError, SearchError, ...
        return api_error(
            getattr(exc, "status_code", 400),
            str(exc),
            getattr(exc, "code", None),
            headers=getattr(exc, "headers", None),
        )
    if (disk := storage_error_in(exc)) is not None:  # an OSError or SQLite error, unconverted
        return storage_failure(disk)
    return api_error(500, f"internal error ({type(exc).__name__}); see the server log")
