"""What every agent tool shares: typed arguments, a context, and a two-sided result (compact
text for the model, a typed object for programs).

Tool JSON schemas are generated from the argument models, never written by hand.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from types import UnionType
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import AliasChoices, BaseModel
from pydantic.fields import FieldInfo

from playscout.clients.calls import CallRecord
from playscout.clients.chat import ChatClient
from playscout.config import (
    DEFAULT_MODE,
    Mode,
    PerceptionSettings,
    QASettings,
    SearchSettings,
)
from playscout.config.presets import ToolParam
from playscout.corpus.loader import Corpus
from playscout.search.backend_api import SearchBackend
from playscout.tools.args import ToolArgs as ToolArgs  # re-exported: every tool's base
from playscout.tools.entities import EntityResolver
from playscout.tools.errors import ToolError as ToolError  # re-exported: tools raise it
from playscout.tools.errors import ToolSpecError
from playscout.tools.roles import ModelRole
from playscout.tools.session_memory import SessionMemory

SchemaStyle = Literal["reference", "pydantic"]


class ToolResult(BaseModel):
    tool: str
    observation: str
    data: Any = None
    notes: list[str] = []
    error: str | None = None
    model_calls: list[CallRecord] = []  # the model calls the tool made (QA models, the VLM)

    @classmethod
    def failure(cls, tool: str, message: str) -> ToolResult:
        return cls(tool=tool, observation=f"Error: {message}", error=message)


@dataclass
class ModelSet:
    """Clients behind the tools' model roles (tools/roles.py), by the QASettings field that
    holds each endpoint; None = not configured (the tool then says what it did). The three
    roles the paper's tools use are fields; a role another tool declares lives in `more`."""

    document_llm: ChatClient | None = None
    vlm: ChatClient | None = None
    caption_llm: ChatClient | None = None
    more: dict[str, ChatClient | None] = field(default_factory=dict)

    def client(self, setting: str) -> ChatClient | None:
        """The client of the role whose endpoint is `qa.<setting>`."""
        if setting in ("document_llm", "vlm", "caption_llm"):
            client: ChatClient | None = getattr(self, setting)
            return client
        return self.more.get(setting)


@dataclass
class ToolContext:
    """Everything a tool call may touch. No globals: one per agent run (or shared, read-only)."""

    backend: SearchBackend
    sport: str
    mode: Mode = DEFAULT_MODE
    search: SearchSettings = field(default_factory=SearchSettings)
    qa: QASettings = field(default_factory=QASettings)
    corpus: Corpus | None = None  # media (clip files) for video_qa and perception tools
    models: ModelSet = field(default_factory=lambda: ModelSet())
    perception: PerceptionSettings = field(default_factory=PerceptionSettings)
    memory: SessionMemory = field(default_factory=SessionMemory)  # one per run: never share
    # reference: observations carry what the reference's tools return and the QA prompts are
    # the reference's own (the paper preset); playscout: playscout's richer observations.
    style: Literal["reference", "playscout"] = "playscout"

    @functools.cached_property
    def resolver(self) -> EntityResolver:
        teams, players = self.backend.entities(self.sport)
        return EntityResolver(self.sport, teams, players, self.search.fuzzy_cutoff)


def function_schema(
    name: str,
    description: str,
    args: type[ToolArgs],
    params: tuple[ToolParam, ...] | None = None,
    style: SchemaStyle = "pydantic",
) -> dict[str, Any]:
    """OpenAI function-calling schema generated from the argument model (a fresh copy: callers
    may change it; the generation itself runs once per tool and process). `params` picks,
    orders and describes the parameters shown (each a field or alias of the model);
    style "reference" gives each one flat type as the SVI-Bench reference's schemas do."""
    return json.loads(_schema_json(name, description, args, params, style))


@functools.cache
def _schema_json(
    name: str,
    description: str,
    args: type[ToolArgs],
    params: tuple[ToolParam, ...] | None,
    style: SchemaStyle,
) -> str:
    if style == "reference":
        parameters = _reference_parameters(args, params)
    else:
        parameters = args.model_json_schema()
        parameters.pop("title", None)
        for prop in parameters.get("properties", {}).values():
            prop.pop("title", None)
        if params is not None:
            parameters = _pick(parameters, args, params)
    return json.dumps(
        {
            "type": "function",
            "function": {"name": name, "description": description, "parameters": parameters},
        }
    )


def _field_named(args: type[ToolArgs], shown: str) -> tuple[str, FieldInfo]:
    """The model field a shown parameter name stands for: the field itself or one of its
    validation aliases (search_videos shows `period` for its `quarter` field)."""
    for fname, finfo in args.model_fields.items():
        alias = finfo.validation_alias
        aliases = alias.choices if isinstance(alias, AliasChoices) else [alias]
        if shown == fname or shown in aliases:
            return fname, finfo
    raise ToolSpecError(f"{args.__name__} has no parameter {shown!r}")


def _pick(
    schema: dict[str, Any], args: type[ToolArgs], params: tuple[ToolParam, ...]
) -> dict[str, Any]:
    props, required = {}, []
    for p in params:
        fname, _ = _field_named(args, p.name)
        props[p.name] = {**schema["properties"][fname], "description": p.description}
        if p.required or fname in schema.get("required", []):
            required.append(p.name)
    return {"type": "object", "properties": props, "required": required}


_JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean"}


def _flat_type(annotation: Any) -> dict[str, Any]:
    """The first non-null alternative of an annotation as one flat JSON type (`str |
    list[str] | None` -> string), with `items` for a list."""
    options = (
        [a for a in get_args(annotation) if a is not type(None)]
        if get_args(annotation) and get_origin(annotation) in (Union, UnionType)
        else [annotation]
    )
    first = options[0]
    if get_origin(first) is list:
        (item,) = get_args(first) or (str,)
        return {"type": "array", "items": {"type": _JSON_TYPES.get(item, "string")}}
    return {"type": _JSON_TYPES.get(first, "string")}


def _reference_parameters(
    args: type[ToolArgs], params: tuple[ToolParam, ...] | None
) -> dict[str, Any]:
    shown = params or tuple(
        ToolParam(name=n, description=f.description or "", required=f.is_required())
        for n, f in args.model_fields.items()
    )
    props: dict[str, Any] = {}
    required = []
    for p in shown:
        _, finfo = _field_named(args, p.name)
        flat = _flat_type(finfo.annotation)
        props[p.name] = {"type": flat["type"], "description": p.description}
        if "items" in flat:
            props[p.name]["items"] = flat["items"]
        if p.required or finfo.is_required():
            required.append(p.name)
    return {"type": "object", "properties": props, "required": required}


@dataclass(frozen=True)
class Tool:
    """One tool. Declared with `tools.declare.tool` on its implementation; `description` is a
    template (`{{search.document_top_k}}`, `{{period_words}}`, see tools/describe.py) until a
    run's settings fill it (`describe.described`)."""

    name: str
    description: str
    args: type[ToolArgs]
    run: Callable[[ToolContext, Any], ToolResult]
    reads_media: bool = False  # opens clip pixels or audio: never offered in oracle mode
    params: tuple[ToolParam, ...] | None = None  # the parameters the schema shows (presets)
    schema_style: SchemaStyle = "pydantic"
    group: str = ""  # search | qa | perception | utility: the registry's views
    roles: tuple[ModelRole, ...] = ()  # models it calls in default mode
    oracle_roles: tuple[ModelRole, ...] | None = None  # in oracle mode; None = `roles`
    oracle_only: bool = False  # a stand-in offered only in oracle mode (video_qa_oracle)
    no_preset: str = ""  # why no preset offers it (else the registry test fails)

    def roles_for(self, mode: Mode) -> tuple[ModelRole, ...]:
        if mode == "oracle" and self.oracle_roles is not None:
            return self.oracle_roles
        return self.roles

    def schema(self) -> dict[str, Any]:
        return function_schema(
            self.name, self.description, self.args, self.params, self.schema_style
        )
