"""The one factory that turns `Settings` into what a run needs: the search backend, the model
clients, the media corpus, the tool context and the agent. The CLI, the API and eval all build
through it, so a setting (perception limits, QA endpoints, search knobs) means the same thing
wherever a run starts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from playscout.clients.chat import ChatClient
from playscout.clients.factory import chat_client as chat_client  # re-exported: eval, judges
from playscout.config import (
    DEFAULT_MODE,
    DEFAULT_POLICY,
    MODES,
    POLICIES,
    AgentSettings,
    Mode,
    Policy,
    QueryTowerEndpoint,
    SearchSettings,
    Settings,
)
from playscout.config.presets import (
    DEFAULT_PRODUCT_PRESET,
    Preset,
    apply_preset,
    load_preset,
    preset_record,
)
from playscout.corpus import Corpus
from playscout.errors import PlayscoutError
from playscout.search import SearchBackend, kind_for, open_backend
from playscout.tools.tool import ModelSet, Tool, ToolContext

if TYPE_CHECKING:
    from playscout.agent import Agent  # imported by `Runtime.agent`: a search never loads it


class SetupError(PlayscoutError, ValueError):
    """A run that cannot be set up from these settings (no index, unknown mode): one line."""


Choice = TypeVar("Choice", bound=str)


def _one_of(value: str, choices: tuple[Choice, ...], what: str) -> Choice:
    for choice in choices:
        if value == choice:
            return choice
    raise SetupError(f"{what} must be one of {', '.join(choices)}, not {value!r}")


def parse_mode(value: str) -> Mode:
    return _one_of(value, MODES, "mode")


def parse_policy(value: str) -> Policy:
    return _one_of(value, POLICIES, "policy")


def open_index(
    target: Path | str,
    ann_probe: int | None = None,
    backend: str = "auto",
    device: str = "cpu",
    embed_device: str | None = None,
    video_query: QueryTowerEndpoint | None = None,
    warm: bool = False,
) -> SearchBackend:
    """The index named by `target` (a directory, an Elasticsearch URL, another registered
    kind's target), or a one-line error saying how to build one. `ann_probe`:
    SearchSettings.ann_probe (see open_backend); `backend`: Settings.backend; `device`:
    SearchSettings.device; `embed_device`: EmbedSettings.device, where query embedders run;
    `video_query`: QASettings.video_query, the text tower of the video vectors (when
    configured it embeds the visual channel's queries; nothing is asked of it until then).
    `warm`: a long-lived process (open_backend)."""
    kind = kind_for(target, backend)
    if not kind.present(str(target)):
        raise SetupError(f"no index at {target}: build one with `playscout index build`")
    towers = (
        {"visual": video_query.embedder_spec()} if video_query and video_query.configured else {}
    )
    return open_backend(
        target,
        towers,
        ann_probe=ann_probe,
        backend=kind.name,
        device=device,
        embed_device=embed_device,
        warm=warm,
    )


@dataclass
class Runtime:
    """Shared, read-only parts of runs. Each run still gets its own ToolContext (a fresh
    session memory) from `tool_context`."""

    settings: Settings
    backend: SearchBackend | None
    llm: ChatClient | None = None
    models: ModelSet = field(default_factory=ModelSet)
    corpus: Corpus | None = None
    tools: tuple[Tool, ...] | None = None
    preset: Preset = field(default_factory=lambda: load_preset(DEFAULT_PRODUCT_PRESET))
    deviations: list[str] = field(default_factory=list)  # explicit settings over the preset
    tracer: Any = None  # OpenTelemetry tracer for the agents' spans; None = no tracing

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        *,
        backend: SearchBackend | None = None,
        llm: ChatClient | None = None,
        models: ModelSet | None = None,
        tools: Sequence[Tool] | None = None,
        need_index: bool = True,
        need_llm: bool = True,
        default_preset: str = DEFAULT_PRODUCT_PRESET,
        tracer: Any = None,
        warm: bool = False,
    ) -> Runtime:
        """Anything passed in is used as is (tests, embedding apps); the rest comes from
        `settings`, under its protocol preset (`settings.preset`, else `default_preset`):
        the preset fills every setting the user left unset (generation from the agent
        model's profile), and explicit ones that differ are kept as deviations. The index is
        opened when `need_index`; the agent's model is built when `need_llm` and it is
        configured (a workflow-policy batch needs neither model). The tracer is the OTLP one
        when `settings.telemetry.otlp_endpoint` is set. `warm`: a long-lived process (serve,
        eval): query embedders run where their vectors were made (open_backend)."""
        from playscout.agent.tracing import otlp_tracer
        from playscout.tools.registry import models_from_settings

        preset = load_preset(settings.preset or default_preset)
        settings, deviations = apply_preset(settings, preset)
        if backend is None and need_index:
            backend = open_index(
                settings.index,
                settings.search.ann_probe,
                settings.backend,
                settings.search.device,
                settings.embed.device,
                settings.qa.video_query,
                warm=warm,
            )
        if llm is None and need_llm and settings.agent.llm.configured:
            llm = chat_client(settings.agent.llm)
        return cls(
            settings=settings,
            backend=backend,
            llm=llm,
            models=models if models is not None else models_from_settings(settings.qa),
            corpus=Corpus(settings.corpus_dir) if settings.corpus_dir else None,
            tools=tuple(tools) if tools is not None else None,
            preset=preset,
            deviations=deviations,
            tracer=tracer if tracer is not None else otlp_tracer(settings.telemetry),
        )

    def preset_record(self) -> dict[str, Any]:
        """What run records store: the preset's name, version, file hash and the deviations."""
        return {**preset_record(self.settings.preset or self.preset.name),
                "deviations": list(self.deviations)}  # fmt: skip

    def require_backend(self) -> SearchBackend:
        if self.backend is None:
            raise SetupError("this run needs an index: pass --index (or settings.index)")
        return self.backend

    def tool_context(
        self,
        sport: str,
        mode: Mode = DEFAULT_MODE,
        *,
        backend: SearchBackend | None = None,
        search: SearchSettings | None = None,
        models: ModelSet | None = None,
    ) -> ToolContext:
        """The only place a ToolContext is built. `backend`, `search` and `models` narrow this
        run (an eval task's view of the index, a task's search overrides, the runtime's QA
        clients behind eval's response cache)."""
        return ToolContext(
            backend=backend if backend is not None else self.require_backend(),
            sport=sport,
            mode=mode,
            search=search if search is not None else self.settings.search,
            qa=self.settings.qa,
            corpus=self.corpus,
            models=models if models is not None else self.models,
            perception=self.settings.perception,
            style=self.preset.tool_style,
        )

    def agent(
        self,
        ctx: ToolContext,
        policy: Policy = DEFAULT_POLICY,
        *,
        settings: AgentSettings | None = None,
        llm: ChatClient | None = None,
        checkpointer: Any = None,
        tokenizer: Any = None,
        tools: Sequence[Tool] | None = None,
    ) -> Agent:
        """The agent over `ctx`: the preset's tools for the context's mode unless `tools` (a
        task's subset) or the runtime's own are given; in oracle mode never one that reads
        pixels or audio."""
        from playscout.agent import Agent

        return Agent(
            ctx,
            client=(llm or self.llm) if policy == "llm" else None,
            tools=tools if tools is not None else self.tools,
            settings=settings or self.settings.agent,
            policy=policy,
            tokenizer=tokenizer,
            checkpointer=checkpointer,
            preset=self.preset,
            deviations=self.deviations,
            tracer=self.tracer,
            capture_content=self.settings.telemetry.capture_content,
            content_chars=self.settings.telemetry.max_content_chars,
        )
