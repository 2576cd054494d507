"""Query parameters get the rule request bodies have (`extra="forbid"`): a misspelt or unknown
parameter is a 422 that names it, never silently ignored (`?k=100000000` used to look like it
worked). Mounted on the API routers, not on the viewer's pages."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError


def _declared(dependant: Any) -> set[str]:
    names = {field.alias for field in dependant.query_params}
    for sub in dependant.dependencies:
        names |= _declared(sub)
    return names


async def reject_unknown_query(request: Request) -> None:
    dependant = getattr(request.scope.get("route"), "dependant", None)
    if dependant is None or not request.query_params:
        return
    allowed = _declared(dependant)
    unknown = sorted(set(request.query_params) - allowed)
    if unknown:
        takes = ", ".join(sorted(allowed)) or "none"
        raise RequestValidationError(
            [
                {
                    "type": "extra_forbidden",
                    "loc": ("query", unknown[0]),
                    "msg": f"unknown query parameter (this route takes: {takes})",
                    "input": request.query_params[unknown[0]],
                }
            ]
        )
