"""One test over the whole tool registry: every declared tool, whatever its module. Schemas
come from the argument models; every description placeholder is filled under each preset and
under settings other than the defaults (the numbers the model is told are the run's); oracle
mode never offers a pixel or audio reader; every tool is offered by some preset (or says why
not); every model role a tool calls is probed by preflight, reported by /readyz and has its
CLI flags."""

from __future__ import annotations

import re
import subprocess
import sys
from typing import Any

import pytest

from playscout.cli.common import ENDPOINTS
from playscout.config import Settings
from playscout.config.presets import ToolSpec, apply_preset, load_preset, preset_names
from playscout.runtime.preflight import ROLES as PREFLIGHT_ROLES
from playscout.runtime.preflight import Needs
from playscout.tools.declare import tool
from playscout.tools.describe import fields, fill
from playscout.tools.errors import ToolSpecError
from playscout.tools.offer import offered_tools
from playscout.tools.registry import MODEL_ROLES, REGISTRY
from playscout.tools.roles import ROLES
from playscout.tools.tool import ToolArgs, ToolContext, ToolResult

TOOLS = sorted(REGISTRY)
MODES = ("default", "oracle")
# Settings no preset uses, so a number left in a description cannot pass by coincidence.
ODD = {"search": {"document_top_k": 5, "video_top_k": 10, "observation_clips": 7},
       "qa": {"frames_per_clip": 4}}  # fmt: skip


def _settings(preset: str, explicit: dict[str, Any] | None = None) -> Settings:
    applied, _ = apply_preset(Settings.model_validate(explicit or {}), load_preset(preset))
    return applied


def _offered(preset: str, mode: str, s: Settings) -> dict[str, str]:
    p = load_preset(preset)
    tools = offered_tools(p.offered(mode), mode, s.search, s.qa, p.schema_style)
    return {t.name: t.schema()["function"]["description"] for t in tools}


@pytest.mark.parametrize("name", TOOLS)
def test_schema_is_generated_from_the_argument_model(name: str) -> None:
    t = REGISTRY[name]
    fn = t.schema()["function"]
    assert fn["name"] == name and fn["description"] == t.description
    model = t.args.model_json_schema()
    assert set(fn["parameters"]["properties"]) == set(model["properties"])
    assert fn["parameters"].get("required", []) == model.get("required", [])
    assert fn["parameters"]["additionalProperties"] is False


@pytest.mark.parametrize("name", TOOLS)
def test_a_description_states_no_number_of_its_own(name: str) -> None:
    """Numbers come from placeholders (`{{search.document_top_k}}`), never from the text."""
    text = re.sub(r"\{\{[\w.]+\}\}", "", REGISTRY[name].description)
    assert not re.search(r"\b\d", text), text  # BM25 is a name, not a number


@pytest.mark.parametrize("preset", preset_names())
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("odd", [False, True], ids=["preset", "odd-settings"])
def test_every_placeholder_is_filled(preset: str, mode: str, odd: bool) -> None:
    offered = _offered(preset, mode, _settings(preset, ODD if odd else None))
    assert offered
    for name, text in offered.items():
        assert "{{" not in text and not fields(text), (name, text)


@pytest.mark.parametrize("preset", preset_names())
def test_descriptions_tell_the_runs_numbers(preset: str) -> None:
    """The defect this fixes: under `extended` with document_top_k=5, video_top_k=10 and
    frames_per_clip=4 the model was told "top 20", "up to 100" and "16 frames per clip"."""
    text = _offered(preset, "default", _settings(preset, ODD))
    stated = {
        "search_documents": re.findall(
            r"(?:top|At most) (\d+) documents", text["search_documents"]
        ),
        "search_videos": re.findall(r"(?:up to|At most) (\d+) clip", text["search_videos"]),
        "video_qa": re.findall(r"\((\d+) frames per clip, read", text["video_qa"]),
    }
    assert stated == {"search_documents": ["5"], "search_videos": ["10"], "video_qa": ["4"]}


def test_an_unknown_placeholder_fails_when_declared_and_when_filled() -> None:
    class Args(ToolArgs):
        pass

    def run(ctx: ToolContext, args: Args) -> ToolResult:
        return ToolResult(tool="x", observation="")

    with pytest.raises(ToolSpecError, match=r"tool 'x': unknown placeholder \{\{search\.top\}\}"):
        tool("x", "top {{search.top}} documents", group="utility")(run)
    assert "x" not in REGISTRY
    s = Settings()
    with pytest.raises(ToolSpecError, match=r"tool 'y' has an unknown placeholder \{\{frames\}\}"):
        fill("{{frames}} frames", s.search, s.qa, "tool 'y'")


@pytest.mark.parametrize("preset", preset_names())
def test_oracle_mode_never_offers_a_pixel_or_audio_reader(preset: str) -> None:
    readers = {n for n, t in REGISTRY.items() if t.reads_media}
    assert readers >= {"extract_scene_text", "transcribe_speech", "detect_audio_events"}
    assert not set(_offered(preset, "oracle", _settings(preset))) & readers
    s = Settings()
    every = offered_tools([ToolSpec(name=n) for n in TOOLS], "oracle", s.search, s.qa)
    assert not {t.name for t in every} & readers


def test_every_tool_is_offered_by_a_preset_or_says_why_not() -> None:
    offered = {
        spec.name
        for preset in preset_names()
        for mode in MODES
        for spec in load_preset(preset).offered(mode)
    }
    silent = [n for n, t in REGISTRY.items() if n not in offered and not t.no_preset]
    assert not silent, f"in no preset (add it to one, or declare no_preset=...): {silent}"


def test_every_model_role_is_probed_reported_and_flagged() -> None:
    used = {r for t in REGISTRY.values() for m in MODES for r in t.roles_for(m)}
    assert used <= set(MODEL_ROLES) and set(MODEL_ROLES) == set(ROLES.values())
    for role in MODEL_ROLES:
        assert PREFLIGHT_ROLES[role.name].path == role.path
        assert ENDPOINTS[role.flag][0] == role.path
        assert role.endpoint(Settings().qa) is not None
    for name, t in REGISTRY.items():
        for mode in MODES:
            roles = Needs(mode=mode, tools=frozenset({name})).roles()
            assert roles == [r.name for r in t.roles_for(mode)]


def test_every_role_is_declared_where_the_cli_reads_it_at_start_up() -> None:
    code = "import playscout.tools.roles as r, sys; print(sorted(r.ROLES)); print('playscout.tools.registry' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == [str(sorted(r.name for r in MODEL_ROLES)), "False"]
