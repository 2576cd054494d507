"""Prompt assembly: the paper's system prompt (Fig. 43) with a real `{{env_desc}}`.

The reference never filled the environment section: its description files were not shipped and
the team list was built before the databases loaded (defect 5). Here env_desc is computed from
the opened backend: which sources actually hold data, which tools are offered, and the sport's
canonical team names, so the model can write filters that resolve.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from importlib import resources

from playscout.corpus.models import DOC_TYPES, PERIOD_NAME
from playscout.search.backend_api import DocFilter
from playscout.tools.tool import Tool, ToolContext

SOURCE_TEXT: dict[str, str] = {
    "espn_report": "game reports (recaps written after each game); doc id `{game_id}_espn_report`",
    "game_stat_player": "per-game player box scores; doc id `{game_id}_game_stat_player`",
    "game_stat_team": "per-game team statistics; doc id `{game_id}_game_stat_team`",
    "season_stat_player": "season statistics of a player; doc id "
    "`player_{id}_{season}_season_stat_player`",
    "season_stat_team": "season statistics of a team; doc id `team_{id}_{season}_season_stat_team`",
}


@functools.cache
def template(name: str) -> str:
    """A prompt file from playscout/agent/prompts/ (kept as text so they can be edited and
    diffed without touching code)."""
    return resources.files("playscout.agent").joinpath(f"prompts/{name}.txt").read_text("utf-8")


def render(name: str, **values: str) -> str:
    text = template(name)
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", value)
    return text.strip()


def enabled_sources(ctx: ToolContext) -> list[str]:
    """Document types that hold at least one document for the sport, plus videos when a clip
    channel exists; a source the index lacks is not offered to the model."""
    found = [
        t
        for t in DOC_TYPES
        if ctx.backend.search_documents(ctx.sport, None, DocFilter(doc_types=[t]), top_k=1)
    ]
    if ctx.backend.channels(ctx.sport):
        found.append("videos")
    return found


@functools.cache
def _signature(tool: Tool) -> str:
    props = tool.schema()["function"]["parameters"].get("properties", {})
    return f"{tool.name}({', '.join(props)})"


def env_description(ctx: ToolContext, tools: Sequence[Tool]) -> str:
    sport = ctx.sport
    period = PERIOD_NAME.get(sport, "period")
    channels = ctx.backend.channels(sport)
    lines = [f"Sport: {sport} (game segments are called {period}s; pass them as `quarter`)."]
    if ctx.mode == "oracle":
        lines.append(
            "Mode: oracle. search_videos matches ground-truth event captions instead of video "
            "embeddings, and video_qa reads those captions instead of frames."
        )
    else:
        lines.append(
            "Mode: default. search_videos matches video embeddings of the clips and the "
            "commentary and sounds heard in them (quote spoken words)."
        )
    lines.append("Data sources enabled:")
    for source in enabled_sources(ctx):
        if source == "videos":
            lines.append(
                f"- [videos] clips of 10-15 s with game id, {period}, video time, game clock, "
                f"teams and players; clip id `{{game_id}}_{{index}}` (channels: {', '.join(channels)})"
            )
        else:
            lines.append(f"- [{source}] {SOURCE_TEXT.get(source, source)}")
    lines.append("Tools:")
    lines += [f"- {_signature(t)}: {t.description}" for t in tools]
    teams, _players = ctx.backend.entities(sport)
    if teams:
        lines.append(
            f"[Entity Reference] Canonical {sport} team names: {', '.join(sorted(teams))}."
        )
    return "\n".join(lines)


def tools_section(tools: Sequence[Tool]) -> str:
    """Hermes/Qwen style: one OpenAI function schema per line inside <tools></tools>."""
    tool_lines = "\n".join(json.dumps(t.schema(), ensure_ascii=False) for t in tools)
    return render("tools_text", tool_lines=tool_lines)


def system_prompt(ctx: ToolContext, tools: Sequence[Tool], protocol: str) -> str:
    text = render("system", env_desc=env_description(ctx, tools))
    if protocol == "text":
        text += "\n\n" + tools_section(tools)
    return text


def final_message() -> str:
    return render("final")


def corrective_message(errors: Sequence[str]) -> str:
    details = (" " + "; ".join(errors[:3]) + ".") if errors else ""
    return render("corrective", details=details)


def context_notice(count: int) -> str:
    return render("context_notice", count=str(count))
