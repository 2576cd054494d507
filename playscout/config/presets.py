"""Protocol presets: a named, versioned protocol (tools and their descriptions, prompts,
tool-call protocol, generation, context, oracle semantics, judge) as data. One YAML file per
preset in playscout/presets/; a run records the preset it ran under and every setting that
deviates from it, so a `paper` number is never mixed with an extended one."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from playscout.config import ConfigError, Mode, Settings, deep_merge, validation_line
from playscout.errors import PlayscoutError, one_line

PRESETS_DIR = "presets"  # inside the playscout package: one YAML file per preset
DEFAULT_EVAL_PRESET = "paper"
DEFAULT_PRODUCT_PRESET = "extended"


class PresetError(PlayscoutError, ValueError):
    """A preset that cannot be used: unknown name, unreadable file, unknown field."""


class ToolParam(BaseModel):
    """One parameter as a tool's schema shows it. The name must be a field (or an alias) of
    the tool's argument model, which also gives the type."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    description: str
    required: bool = False


class ToolSpec(BaseModel):
    """One tool a preset offers."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="A tool of the registry (playscout/tools/declare.py, TOOLS).")
    description: str | None = Field(
        None,
        description="A text file under playscout/tools/descriptions/ (without .txt); "
        "None = the registry's one-line description.",
    )
    parameters: list[ToolParam] | None = Field(
        None, description="The parameters the schema shows, in order; None = the argument model's."
    )


class _ByModelName(BaseModel):
    """A profile for one family of models, picked by the first whose `match` fits the name."""

    model_config = ConfigDict(extra="forbid")

    name: str
    match: list[str] = Field(
        default_factory=list,
        description="Lower-case substrings of the model name; [] = any model (the fallback).",
    )

    def matches(self, model: str) -> bool:
        return not self.match or any(m in model.lower() for m in self.match)


class GenerationProfile(_ByModelName):
    """Agent generation settings for one family of models, picked by the served model name."""

    system_prompt: str = Field(description="A prompt file under playscout/agent/prompts/.")
    temperature: float = Field(ge=0)
    top_p: float = Field(1.0, gt=0, le=1)
    max_tokens: int = Field(ge=1)
    reasoning_effort: str | None = None
    context_window: int | None = Field(
        None,
        ge=1024,
        description="The model's served context window (tokens); the agent's context limit "
        "is this less the reply budget (max_tokens), so a request always fits. None = the "
        "overlay's agent.max_context_tokens.",
    )
    source: str = Field("", description="Where the values come from.")


class FrameProfile(_ByModelName):
    """T4's answerer for one family of VLMs, picked by the VLM's name: frames per full-game
    video, and how the reference asked it (its sampling, its budget, one video or images)."""

    frames: int = Field(ge=1)
    temperature: float | None = Field(None, ge=0, description="None = the endpoint's.")
    max_tokens: int | None = Field(None, ge=1, description="None = the endpoint's.")
    video_input: bool = Field(False, description="The frames as one native video input.")
    source: str = Field("", description="Where the number comes from.")


class Expectation(BaseModel):
    """What a run must have used for its number to stand next to the paper's: the stamp
    (eval/running/stamp.py) checks it against what ran, never against what was asked for."""

    model_config = ConfigDict(extra="forbid")

    tasks: list[str] = Field(description="The tasks whose paper tables these facts are from.")
    policy: str = Field("llm", description="The agent policy the paper ran.")
    roles: dict[Mode, list[str]] = Field(
        description="Model settings (agent, qa.<field>) that must be configured, per mode."
    )
    embedders: dict[Mode, dict[str, str]] = Field(
        description="Index channel -> the embedder that made its vectors, per mode (matched "
        "in the recorded spec's kind or model, case-insensitive; `any` = present)."
    )
    models: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Role (document_llm, caption_llm, vlm, video_query) or `judge` -> the "
        "paper's models, as lower-case substrings of the served name (`_` read as `-`). The "
        "agent is not here: the paper compares agents, and the stamp names the one that ran.",
    )
    units: Literal["reference", "any"] = Field(
        "reference",
        description="reference: text vectors a model made here must be over the reference's "
        "units (index build --units reference); the release's own vectors are.",
    )
    judge: str = Field("llm", description="The judge kind the paper's numbers come from.")
    corpus: Literal["release", "any"] = Field(
        "release", description="release: the SVI-Bench release, not a generated corpus."
    )
    source: str = Field("", description="Where the expectations come from.")


class Preset(BaseModel):
    """A named, versioned protocol: everything a benchmark number depends on besides the
    model (tools and their descriptions, prompts, tool-call protocol, generation, context,
    oracle semantics, judge). `settings` is an overlay validated by Settings; values a user
    sets explicitly win over it and are recorded as deviations (`apply_preset`)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    version: int = Field(ge=1)
    description: str
    paper_comparable: bool = Field(
        description="True only for a preset whose numbers may stand next to SVI-Bench Table 15."
    )
    tools: list[ToolSpec] = Field(min_length=1, description="Offered in default mode, in order.")
    oracle_tools: list[ToolSpec] | None = Field(
        None, description="Offered in oracle mode; None = `tools`."
    )
    schema_style: Literal["reference", "pydantic"] = Field(
        "pydantic",
        description="reference: the reference's flat parameter types and required lists; "
        "pydantic: the argument models' full JSON schemas.",
    )
    tools_prompt: str = Field("tools_text", description="Tool section of the text protocol.")
    final_prompt: str = Field("final", description="The forced last call's user message.")
    corrective_prompt: str = Field(
        "corrective", description="The user message after a reply with no call and no answer."
    )
    truncated_prompt: str | None = Field(
        None,
        description="Without pruning: the notice appended to the message cut at the context "
        "limit, before the final prompt; None = the final prompt alone.",
    )
    observation_template: str = Field(
        "<tool_response>\n{observation}\n</tool_response>",
        description="How a text-protocol observation is wrapped ({observation}).",
    )
    env_style: Literal["reference", "playscout"] = Field("playscout")
    tool_style: Literal["reference", "playscout"] = Field(
        "playscout",
        description="reference: tool observations with the reference's content (every clip "
        "listed, no game clock or date) and its QA prompts verbatim; playscout: richer ones.",
    )
    generation: list[GenerationProfile] = Field(min_length=1)
    forced_final: Literal["raw", "tag"] = Field(
        "tag",
        description="A forced last reply without <answer>: raw = its text is the answer the "
        "judge reads (the reference); tag = no answer.",
    )
    bare_fallback_ends: bool = Field(
        False, description="The fallback sentence without <answer> tags also ends the run."
    )
    judge_prompt: Literal["fig42", "fig42_question"] = Field(
        "fig42_question",
        description="fig42: Figure 42 verbatim; fig42_question: with the question added.",
    )
    game_frames: list[FrameProfile] = Field(
        default_factory=list,
        description="T4: frames per full-game video by VLM name (eval.frames_per_game); "
        "[] = qa.frames_per_clip.",
    )
    unnumbered_answers: Literal["whole", "zero"] = Field(
        "whole",
        description="T4: a reply without `Answer i:` lines: whole = it is the one candidate; "
        "zero = no candidate, scored 0 (the reference's parse_answers).",
    )
    expects: Expectation | None = Field(
        None, description="What a comparable run used (paper_comparable presets only)."
    )
    settings: dict[str, Any] = Field(default_factory=dict)

    def offered(self, mode: Mode) -> list[ToolSpec]:
        return list(self.oracle_tools if mode == "oracle" and self.oracle_tools else self.tools)

    def tool_names(self, mode: Mode) -> frozenset[str]:
        """The tools an agent under this preset may call in `mode` (what preflight checks)."""
        return frozenset(t.name for t in self.offered(mode))

    def game_frames_for(self, vlm: str) -> FrameProfile | None:
        """The frame profile for the VLM named `vlm`; None when the preset has none."""
        return next((p for p in self.game_frames if p.matches(vlm)), None)

    def profile(self, model: str) -> GenerationProfile:
        """The first profile matching `model`; the last profile should match any."""
        for p in self.generation:
            if p.matches(model):
                return p
        return self.generation[-1]


def preset_names() -> list[str]:
    from importlib import resources

    folder = resources.files("playscout").joinpath(PRESETS_DIR)
    return sorted(p.name[: -len(".yaml")] for p in folder.iterdir() if p.name.endswith(".yaml"))


def _preset_text(ref: str) -> tuple[str, str]:
    """(text, where) of a packaged preset name or a preset file path (read afresh: a file
    may be edited between runs)."""
    if ref.endswith((".yaml", ".yml")) or "/" in ref:
        path = Path(ref)
        try:
            return path.read_text(encoding="utf-8"), str(path)
        except OSError as e:
            raise PresetError(f"cannot read preset file {path}: {e.strerror or e}") from None
    return _packaged_preset(ref)


@functools.cache
def _packaged_preset(ref: str) -> tuple[str, str]:
    from importlib import resources

    if ref not in preset_names():
        raise PresetError(
            f"unknown preset {ref!r}; use one of {', '.join(preset_names())} or a preset file path"
        )
    res = resources.files("playscout").joinpath(f"{PRESETS_DIR}/{ref}.yaml")
    return res.read_text(encoding="utf-8"), f"playscout/{PRESETS_DIR}/{ref}.yaml"


def load_preset(ref: str) -> Preset:
    """A preset by name (playscout/presets/<name>.yaml) or path; any problem is one line."""
    text, where = _preset_text(ref)
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise PresetError(f"preset file {where} is not valid YAML: {one_line(e, 200)}") from None
    if not isinstance(data, dict):
        raise PresetError(f"preset file {where} must hold a mapping at the top")
    try:
        preset = Preset.model_validate(data)
    except ValidationError as e:
        raise PresetError(f"preset file {where}: {_error_at(e)}") from None
    for key, value in preset.settings.items():  # the overlay holds only real settings
        field = Settings.model_fields.get(key)
        if field is None:
            raise PresetError(f"preset file {where}: settings.{key}: unknown field")
        try:
            TypeAdapter[Any](field.annotation or Any).validate_python(value)
        except ValidationError as e:
            raise PresetError(f"preset file {where}: {_error_at(e, ('settings', key))}") from None
    return preset


def _error_at(err: ValidationError, prefix: tuple[str, ...] = ()) -> str:
    first = err.errors()[0]
    where = ".".join([*prefix, *(str(p) for p in first["loc"])]) or "preset"
    return f"{where}: {'unknown field' if first['type'] == 'extra_forbidden' else first['msg']}"


def preset_label(record: dict[str, Any] | str | None) -> str:
    """The preset as report headings show it: its name, marked when the run deviated from it
    (then not comparable to the paper); runs from before presets were `extended`."""
    if not record:
        return "extended"
    if isinstance(record, str):  # a run request names its preset before run.json exists
        return record
    n = len(record.get("deviations") or [])
    return record["name"] + (f" +{n} deviation{'s' if n > 1 else ''}" if n else "")


def preset_record(ref: str) -> dict[str, Any]:
    """What run records store about a preset: name, version, where, and a hash of its file."""
    import hashlib

    text, where = _preset_text(ref)
    preset = load_preset(ref)
    return {
        "name": preset.name,
        "version": preset.version,
        "file": where,
        "sha256": hashlib.sha256(text.encode()).hexdigest()[:16],
        "paper_comparable": preset.paper_comparable,
    }


def leaves(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """A nested mapping as `{"a.b.c": value}`: how deviations and the stamp name a setting."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(leaves(value, path + "."))
        else:
            out[path] = value
    return out


def apply_preset(settings: Settings, preset: Preset) -> tuple[Settings, list[str]]:
    """`settings` with the preset below every explicitly set value: the preset's overlay and
    the agent model's generation profile fill what the user left at its default. Returns the
    settings and the deviations (explicit values that differ from the preset's), which run
    records and reports show: a paper number with a deviation is not paper-comparable."""
    profile = preset.profile(settings.agent.llm.model)
    generation = {
        "temperature": profile.temperature,
        "top_p": profile.top_p,
        "max_tokens": profile.max_tokens,
        "reasoning_effort": profile.reasoning_effort,
    }
    agent: dict[str, Any] = {"llm": generation}
    if profile.context_window is not None:
        agent["max_context_tokens"] = profile.context_window - profile.max_tokens
    base = deep_merge(preset.settings, {"agent": agent})
    frames = preset.game_frames_for(settings.qa.vlm.model)
    if frames is not None:
        game = {
            "frames_per_game": frames.frames,
            "game_temperature": frames.temperature,
            "game_max_tokens": frames.max_tokens,
            "game_video_input": frames.video_input,
        }
        base = deep_merge(base, {"eval": game})
    base["agent"]["llm"]["reasoning_effort"] = profile.reasoning_effort  # None is a value here
    explicit = settings.model_dump(exclude_unset=True)
    wanted, given = leaves(base), leaves(explicit)
    deviations = [
        f"{k}={given[k]!r} (preset {wanted[k]!r})"
        for k in sorted(wanted)
        if k in given and given[k] != wanted[k]
    ]
    merged = deep_merge(base, explicit)
    merged["preset"] = settings.preset or preset.name
    try:
        return Settings.model_validate(merged), deviations
    except ValidationError as e:
        raise ConfigError(validation_line(e, None)) from None
