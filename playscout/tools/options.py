"""A tool's arguments as flags and query parameters: the CLI (`playscout search ...`) and the
API (`/v1/search/...`) build their options from the argument model through this, so a new
argument is one field on the model, never a second list to keep in step."""

from __future__ import annotations

from dataclasses import dataclass
from types import UnionType
from typing import Any, Literal, Union, get_args, get_origin

from playscout.tools.args import ToolArgs

_SCALARS = (str, int, float, bool)


@dataclass(frozen=True)
class ArgOption:
    """One argument of a tool as a flag or query parameter: its scalar type, and whether it
    takes several values (repeated `--teams A --teams B`, `?teams=A&teams=B`)."""

    name: str
    kind: type
    many: bool
    help: str
    default: Any
    required: bool


def _alternatives(annotation: Any) -> list[Any]:
    if get_origin(annotation) in (Union, UnionType):
        return [a for a in get_args(annotation) if a is not type(None)]
    return [annotation]


def _scalar(annotation: Any) -> type:
    if get_origin(annotation) is Literal:
        return type(get_args(annotation)[0])
    return annotation if annotation in _SCALARS else str


def arg_options(args: type[ToolArgs]) -> tuple[ArgOption, ...]:
    """The argument model's fields in order. A field that accepts a list takes several values;
    its scalar type is str when any alternative is a string (`season: int | str` -> str),
    else the first one (`quarter: int | list[int]` -> several ints)."""
    out = []
    for name, field in args.model_fields.items():
        alternatives = _alternatives(field.annotation)
        many = any(get_origin(a) is list for a in alternatives)
        scalars = [
            _scalar(get_args(a)[0] if get_origin(a) is list and get_args(a) else a)
            for a in alternatives
        ]
        kind = str if str in scalars or not scalars else scalars[0]
        required = field.is_required()
        default = None if required else field.get_default(call_default_factory=True)
        out.append(ArgOption(name, kind, many, field.description or "", default, required))
    return tuple(out)


def given(values: dict[str, Any]) -> dict[str, Any]:
    """The arguments a caller gave: an option left out (None, no values) is not an argument."""
    return {k: v for k, v in values.items() if v is not None and v != []}
