"""Prompt assembly from a preset: the system prompt its generation profile names (the
reference's ReAct prompt for `paper`, the condensed Fig. 43 for `extended`) with a real
`{{env_desc}}`, the tool section of the text protocol, and the final, corrective and
truncation messages.

The reference never filled the environment section: its description files were not shipped and
the team list was built before the databases loaded (defect 5). Here env_desc is computed from
the opened backend: which sources actually hold data and the sport's canonical team names, so
the model can write filters that resolve (in the reference's layout for `paper`).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from importlib import resources
from typing import Any

from playscout.config.presets import Preset
from playscout.corpus.models import DOC_TYPES
from playscout.corpus.sports import sport as sport_record
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
    period = sport_record(sport).period_word
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


# The reference's source groups (hyperparameters.yaml `enabled_sources`), in its order. Its
# description files were never shipped (defect 5); these say what each source holds.
REFERENCE_SOURCES: dict[str, tuple[tuple[str, ...], str]] = {
    "espn_report": (
        ("espn_report",),
        "Game recaps written after each game: the result, the leading scorers, runs, streaks "
        "and notable moments. Doc id `{game_id}_espn_report`.",
    ),
    "game_statistics": (
        ("game_stat_player", "game_stat_team"),
        "Per-game statistics: a box score line per player (`{game_id}_game_stat_player`) and "
        "the team totals with scoring by period (`{game_id}_game_stat_team`).",
    ),
    "season_statistics": (
        ("season_stat_player", "season_stat_team"),
        "Per-season averages of each player (`player_{id}_{season}_season_stat_player`) and "
        "each team (`team_{id}_{season}_season_stat_team`).",
    ),
}


def reference_env_description(ctx: ToolContext) -> str:
    """The environment section the reference meant to send: one `- [source]: text` entry per
    enabled source, blank-line separated, then the canonical team list (which the reference
    built before its databases loaded, so it never appeared: defect 5)."""
    found = set(enabled_sources(ctx))
    entries = [
        f"- [{name}]: {text}"
        for name, (types, text) in REFERENCE_SOURCES.items()
        if found.intersection(types)
    ]
    if "videos" in found:
        period = sport_record(ctx.sport).period_word
        entries.append(
            f"- [videos]: Game video cut into clips of 10-15 s, each with its game id, {period} "
            "number, video time, game clock, teams and players. Clip id `{game_id}_{window_id}`."
        )
    text = "\n\n".join(entries)
    teams, _players = ctx.backend.entities(ctx.sport)
    if teams:
        text += (
            "\n\n[Entity Reference]: The following teams are present in the current dataset: "
            f"{', '.join(sorted(teams))}. Please use these names for filtering."
        )
    return text


def tools_section(
    tools: Sequence[Tool], preset: Preset, extra: Sequence[dict[str, Any]] = ()
) -> str:
    """Hermes/Qwen style: one OpenAI function schema per line inside <tools></tools> (`extra`:
    schemas that are not registry tools, the structured protocol's final_answer). The
    reference style writes them as Python's json.dumps does by default (ASCII-escaped)."""
    ascii_only = preset.schema_style == "reference"
    schemas = [*(t.schema() for t in tools), *extra]
    lines = "\n".join(json.dumps(s, ensure_ascii=ascii_only) for s in schemas)
    return render(preset.tools_prompt, tool_lines=lines)


def system_prompt(
    ctx: ToolContext,
    tools: Sequence[Tool],
    protocol: str,
    preset: Preset,
    prompt: str,
    extra: Sequence[dict[str, Any]] = (),
) -> str:
    """`prompt` (a file of prompts/, the model's generation profile picks it) with the
    environment filled in. The text protocol appends the tool section, and so does the
    structured one: its tools also go in the request, but a chat template without tool
    support (SmolLM2's) would never show them to the model."""
    env = (
        reference_env_description(ctx)
        if preset.env_style == "reference"
        else env_description(ctx, tools)
    )
    text = render(prompt, env_desc=env)
    if protocol in ("text", "structured"):
        text += "\n\n" + tools_section(tools, preset, extra)
    return text


def final_message(preset: Preset) -> str:
    return render(preset.final_prompt)


def truncated_notice(preset: Preset) -> str:
    """What follows a message cut at the context limit (no pruning): the truncation notice,
    then the final prompt, as the reference appends them."""
    final = final_message(preset)
    if preset.truncated_prompt is None:
        return final
    return render(preset.truncated_prompt) + "\n" + final


def corrective_message(errors: Sequence[str], preset: Preset) -> str:
    details = (" " + "; ".join(errors[:3]) + ".") if errors else ""
    text = template(preset.corrective_prompt)
    return (text.replace("{{details}}", details) if "{{details}}" in text else text).strip()


def context_notice(count: int) -> str:
    return render("context_notice", count=str(count))
