"""`playscout search ...`: the agent's search tools by hand, exactly as the agent calls them."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from playscout.cli.common import (
    IndexOpt,
    JsonOpt,
    ListOpt,
    ModeOpt,
    SportOpt,
    out,
    print_json,
    settings_for,
)
from playscout.cli.errors import fail, user_errors
from playscout.config import DEFAULT_MODE

search_app = typer.Typer(no_args_is_help=True, help="Run the agent's search tools by hand.")


AnnProbeOpt = Annotated[
    int | None,
    typer.Option(
        min=0,
        help="IVF lists to probe for this search (0 = exact), overriding the setting the "
        "index recorded at build; embedded index only.",
    ),
]


def _context(index: str | None, sport: str, mode: str, ann_probe: int | None) -> Any:
    from playscout.runtime import Runtime, parse_mode

    s = settings_for(index)
    if ann_probe is not None:
        s = s.model_copy(update={"search": s.search.model_copy(update={"ann_probe": ann_probe})})
    runtime = Runtime.from_settings(s)
    return runtime.tool_context(sport, parse_mode(mode))


def _run_search_tool(
    index: str | None,
    sport: str,
    mode: str,
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
    else:
        out.print(result.observation, highlight=False, markup=False, soft_wrap=True)


@search_app.command("documents")
@user_errors
def search_documents_cmd(
    query: Annotated[str, typer.Argument()] = "",
    index: IndexOpt = None,
    sport: SportOpt = "basketball",
    game_ids: ListOpt = None,
    doc_type: Annotated[str | None, typer.Option()] = None,
    teams: ListOpt = None,
    players: ListOpt = None,
    season: Annotated[str | None, typer.Option()] = None,
    date: Annotated[str | None, typer.Option()] = None,
    json_out: JsonOpt = False,
    ann_probe: AnnProbeOpt = None,
) -> None:
    """search_documents exactly as the agent calls it; prints the model's observation."""
    args = {
        "query": query,
        "game_ids": game_ids,
        "doc_type": doc_type,
        "teams": teams,
        "players": players,
        "season": season,
        "date": date,
    }
    _run_search_tool(index, sport, "default", "search_documents", args, json_out, ann_probe)


@search_app.command("videos")
@user_errors
def search_videos_cmd(
    query: Annotated[str, typer.Argument()] = "",
    index: IndexOpt = None,
    sport: SportOpt = "basketball",
    mode: ModeOpt = DEFAULT_MODE,
    game_ids: ListOpt = None,
    quarter: Annotated[int | None, typer.Option()] = None,
    teams: ListOpt = None,
    players: ListOpt = None,
    temporal_boundary: Annotated[str | None, typer.Option()] = None,
    json_out: JsonOpt = False,
    ann_probe: AnnProbeOpt = None,
) -> None:
    """search_videos exactly as the agent calls it; prints the model's observation."""
    args = {
        "query": query,
        "game_ids": game_ids,
        "quarter": quarter,
        "teams": teams,
        "players": players,
        "temporal_boundary": temporal_boundary,
    }
    _run_search_tool(index, sport, mode, "search_videos", args, json_out, ann_probe)
