"""What every use case's request model shares. The API validates a body with the model itself
(a 422); the CLI builds the same model from its flags with `of`, so a value the API refuses
is refused on the command line too, as one line (`error: ...`, exit 2) naming every field at
fault."""

from __future__ import annotations

import re
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic_core import ErrorDetails

from playscout.errors import PlayscoutError


class InvalidRequest(PlayscoutError, ValueError):
    """A request its model refuses, as one line (CLI: exit 2; HTTP: 422)."""

    status_code = 422
    code = "invalid_value"


class Request(BaseModel):
    """A use case's request: unknown fields are errors; a field left None is chosen by the
    use case from the settings (usecases/defaults.py)."""

    model_config = ConfigDict(extra="forbid")

    @classmethod
    def of(cls, **values: Any) -> Self:
        """The request from command-line values, or `InvalidRequest` saying what is wrong."""
        try:
            return cls(**values)
        except ValidationError as e:
            raise InvalidRequest(invalid_line(e)) from None


def invalid_line(error: ValidationError) -> str:
    """Every refused value, one clause each: `limit must be at least 1, not 0; mode must be
    one of default, oracle, not 'video'`."""
    said: dict[str, str] = {}
    for detail in error.errors():
        field = str(detail["loc"][0]) if detail["loc"] else "request"
        said.setdefault(field, _clause(field, detail))  # a union's branches: the first says it
    return "; ".join(said.values())


def _clause(field: str, detail: ErrorDetails) -> str:
    kind, ctx, given = detail["type"], detail.get("ctx") or {}, detail.get("input")
    if kind == "literal_error":
        choices = ", ".join(re.findall(r"'([^']*)'", str(ctx.get("expected", ""))))
        return f"{field} must be one of {choices}, not {given!r}"
    if kind == "greater_than_equal":
        return f"{field} must be at least {ctx['ge']}, not {given!r}"
    if kind == "less_than_equal":
        return f"{field} must be at most {ctx['le']}, not {given!r}"
    if kind == "value_error":  # a validator's own sentence
        return str(detail["msg"]).removeprefix("Value error, ")
    return f"{field}: {detail['msg']}"
