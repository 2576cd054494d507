"""The tools a run offers: a preset's tool list made into `Tool`s (registry entries with the
preset's descriptions and parameter views, every description filled from the run's settings),
and the oracle rule that no tool reading pixels or audio is ever offered in oracle mode,
whatever the preset or the caller asks for."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from playscout.config import Mode, QASettings, SearchSettings
from playscout.config.presets import Preset, ToolSpec
from playscout.tools.describe import described, render_description
from playscout.tools.tool import SchemaStyle, Tool

__all__ = ["check_preset_tools", "offered_tools", "render_description", "without_media"]


def without_media(tools: Sequence[Tool], mode: Mode) -> tuple[Tool, ...]:
    """Oracle isolation: in oracle mode, nothing that opens a clip's pixels or audio."""
    return tuple(t for t in tools if not (mode == "oracle" and t.reads_media))


def offered_tools(
    specs: Sequence[ToolSpec],
    mode: Mode,
    search: SearchSettings,
    qa: QASettings,
    style: SchemaStyle = "pydantic",
) -> tuple[Tool, ...]:
    """The registry's tools named by `specs`, in their order, with each spec's description
    file and parameter view; an unknown name is one ToolSpecError line."""
    from playscout.tools.declare import TOOLS

    out = []
    for spec in specs:
        tool = TOOLS.get(spec.name)  # an unknown name: one ToolSpecError line
        if spec.description:
            tool = replace(tool, description=render_description(spec.description, search, qa))
        (tool,) = described([tool], search, qa)
        params = tuple(spec.parameters) if spec.parameters is not None else None
        made = replace(tool, params=params, schema_style=style)
        made.schema()  # a parameter the argument model lacks fails here, at setup
        out.append(made)
    return without_media(out, mode)


def check_preset_tools(preset: Preset, search: SearchSettings, qa: QASettings) -> None:
    """Sets up the preset's tools for both modes and throws them away: a command that never
    offers tools (`eval judge`) still refuses a preset file naming a tool, a parameter or a
    description the registry lacks, with the same one line `ask` and `eval run` give."""
    for mode in ("default", "oracle"):
        offered_tools(preset.offered(mode), mode, search, qa, preset.schema_style)
