"""`playscout search ...`: the agent's search tools by hand, exactly as the agent calls them."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any

import typer

from playscout.cli.common import (
    IndexOpt,
    JsonOpt,
    ModeOpt,
    SportOpt,
    out,
    print_json,
    settings_for,
)
from playscout.cli.errors import fail, user_errors

search_app = typer.Typer(no_args_is_help=True, help="Run the agent's search tools by hand.")


AnnProbeOpt = Annotated[
    int | None,
    typer.Option(
        min=0,
        help="IVF lists to probe for this search (0 = exact), overriding the setting the "
        "index recorded at build; embedded index only.",
        show_default="the index's setting",
    ),
]


def _context(index: str | None, sport: str | None, mode: str | None, ann_probe: int | None) -> Any:
    """The tool context of this search; a sport or mode not given: the settings' default, as
    an ask's (usecases/defaults.py)."""
    from playscout.runtime import Runtime, parse_mode
    from playscout.usecases.defaults import mode_of, sport_of

    s = settings_for(index)
    if ann_probe is not None:
        s = s.model_copy(update={"search": s.search.model_copy(update={"ann_probe": ann_probe})})
    chosen = mode_of(parse_mode(mode) if mode is not None else None, s.serving)
    runtime = Runtime.from_settings(s)
    held = runtime.require_backend().sports()
    return runtime.tool_context(sport_of(sport, s.serving, held), chosen)


def _run_search_tool(
    index: str | None,
    sport: str | None,
    mode: str | None,
    name: str,
    args: dict[str, Any],
    json_out: bool,
    ann_probe: int | None = None,
) -> None:
    """Call a search tool exactly as the agent does and print the model's observation, or with
    --json the hits as data. A call the tool refuses (bad filter, unknown sport) exits 2."""
    from playscout.tools import SEARCH_TOOLS, call_tool

    given = {k: v for k, v in args.items() if v is not None and v != []}
    ctx = _context(index, sport, mode, ann_probe)
    result = call_tool({t.name: t for t in SEARCH_TOOLS}, ctx, name, given)
    if result.error:
        raise fail(result.error)
    if json_out:
        data = result.data.model_dump(mode="json") if result.data is not None else None
        print_json({"tool": name, "arguments": given, "result": data, "notes": result.notes})
    elif name == "search_videos" and result.data is not None and ctx.mode == "oracle":
        from playscout.tools.search import render_clips

        listed = ctx.search.observation_clips
        shown = render_clips(result.data, ctx.sport, listed, captions=True)
        out.print(shown, highlight=False, markup=False, soft_wrap=True)
    else:
        out.print(result.observation, highlight=False, markup=False, soft_wrap=True)


def _tool_command(name: str, args_model: type[Any], *, modes: bool) -> Callable[..., None]:
    """The `search` command of the tool `name`: its query as the argument and one option per
    other field of its argument model (tools/options.py), as the agent calls it."""
    from playscout.tools.options import arg_options

    def command(
        index: str | None,
        sport: str | None,
        json_out: bool,
        ann_probe: int | None,
        mode: str | None = None,
        **args: Any,
    ) -> None:
        _run_search_tool(index, sport, mode, name, args, json_out, ann_probe)

    own: list[inspect.Parameter] = []
    for opt in arg_options(args_model):
        inner: Any = list.__class_getitem__(opt.kind) if opt.many else opt.kind
        if opt.name == "query":
            marker: Any = typer.Argument(help=opt.help)
            annotation: Any = Annotated[opt.kind, marker]
        else:
            shown: bool | str = "none" if opt.default in (None, []) else True
            annotation = Annotated[inner | None, typer.Option(help=opt.help, show_default=shown)]
        own.append(_param(opt.name, annotation, opt.default))
    shared = [_param("index", IndexOpt, None), _param("sport", SportOpt, None)]
    if modes:
        shared.append(_param("mode", ModeOpt, None))
    tail = [_param("json_out", JsonOpt, False), _param("ann_probe", AnnProbeOpt, None)]
    params = own[:1] + shared + own[1:] + tail
    command.__signature__ = inspect.Signature(params, return_annotation=None)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in params}
    command.__doc__ = f"{name} exactly as the agent calls it; prints the model's observation."
    return command


def _param(name: str, annotation: Any, default: Any) -> inspect.Parameter:
    return inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation
    )


def _register() -> None:
    from playscout.tools.search_args import SearchDocumentsArgs, SearchVideosArgs

    for command, tool, args_model, modes in (
        ("documents", "search_documents", SearchDocumentsArgs, False),
        ("videos", "search_videos", SearchVideosArgs, True),
    ):
        search_app.command(command)(user_errors(_tool_command(tool, args_model, modes=modes)))


_register()
