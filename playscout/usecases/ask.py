"""Prepare an ask: what `playscout ask`, `POST /v1/ask` and the chat facade do before the agent
runs. The request says what it wants (a field left None: usecases/defaults.py chooses);
`prepare_ask` checks that it can run, with the same checks wherever it starts, so a refusal
is the same line (exit 2 on the CLI, a 400 over HTTP), and hands back the agent to run."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import AfterValidator, Field

from playscout.agent.ids import ID_PATTERN
from playscout.agent.question import visible_question
from playscout.config import Mode, Policy, ServingSettings, Settings
from playscout.config.presets import DEFAULT_PRODUCT_PRESET, load_preset
from playscout.runtime import Runtime
from playscout.runtime.preflight import Check, ask_needs, check_run, require
from playscout.usecases.defaults import mode_of, policy_of, sport_of
from playscout.usecases.probe import probe_models
from playscout.usecases.request import Request

if TYPE_CHECKING:
    from playscout.agent import Agent


class AskRequest(Request):
    """One question and what it runs with (`POST /v1/ask`'s body; `playscout ask`'s flags)."""

    question: Annotated[str, AfterValidator(visible_question)] = Field(
        min_length=1, description="The question (max length: a setting)."
    )  # zero-width spaces or direction marks only are as empty as "" (agent/question.py)
    sport: str | None = Field(
        None,
        description="A sport present in the index [default: the server's, `serve --sport`, "
        "else the index's first].",
    )
    mode: Mode | None = Field(None, description="[default: the server's, `serve --mode`]")
    policy: Policy | None = Field(
        None,
        description="llm (needs a configured agent model) or workflow (offline baseline) "
        "[default: the server's, `serve --policy`].",
    )
    session_id: str | None = Field(
        None, pattern=ID_PATTERN, description="Continue an earlier conversation (llm policy)."
    )


@dataclass(frozen=True)
class Choice:
    """What an ask runs with, every choice made."""

    sport: str
    mode: Mode
    policy: Policy


def default_choice(serving: ServingSettings, held: Sequence[str]) -> Choice:
    """What an ask that names nothing runs; `held`: the sports the index holds."""
    return Choice(sport_of(None, serving, held), mode_of(None, serving), policy_of(None, serving))


def ask_checks(runtime: Runtime, choice: Choice) -> list[Check]:
    """The checks that need no network, for this runtime: the tools it offers (its own, else
    its preset's for the mode), the agent's model under the llm policy, what the index holds."""
    tools = [t.name for t in runtime.tools] if runtime.tools is not None else None
    return check_run(
        runtime, ask_needs(runtime.preset, choice.sport, choice.mode, choice.policy, tools)
    )


@dataclass(frozen=True)
class PreparedAsk:
    """An ask that passed its checks: the question with every choice made, the runtime it
    runs on, and what would not stop it but should be said."""

    question: str
    sport: str
    mode: Mode
    policy: Policy
    runtime: Runtime
    session_id: str | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def choice(self) -> Choice:
        return Choice(self.sport, self.mode, self.policy)

    def agent(self, checkpointer: Any = None) -> Agent:
        """The agent for this ask, over a fresh tool context (its own session memory)."""
        ctx = self.runtime.tool_context(self.sport, self.mode)
        return self.runtime.agent(ctx, self.policy, checkpointer=checkpointer)


def prepare_ask(
    request: AskRequest, settings: Settings | None = None, *, runtime: Runtime | None = None
) -> PreparedAsk:
    """The ask `request` asks for, checked; raises PreflightError (every failed check in one
    line) when it cannot run. Without `runtime` (the CLI) the model servers the ask calls are
    probed first, a dead one known in a second before the index is opened, then the runtime is
    built from `settings`; a server passes its own runtime (its models are probed by /readyz,
    not per ask)."""
    base = runtime.settings if runtime is not None else settings
    if base is None:
        raise TypeError("prepare_ask needs settings or a runtime")
    mode, policy = mode_of(request.mode, base.serving), policy_of(request.policy, base.serving)
    warnings: list[str] = []
    if runtime is None:
        preset = load_preset(base.preset or DEFAULT_PRODUCT_PRESET)
        warnings += probe_models(base, ask_needs(preset, None, mode, policy))
        runtime = Runtime.from_settings(base)
    held = runtime.backend.sports() if runtime.backend is not None else []
    choice = Choice(sport_of(request.sport, base.serving, held), mode, policy)
    warnings += [w.detail for w in require(ask_checks(runtime, choice))]
    return PreparedAsk(
        question=request.question,
        sport=choice.sport,
        mode=choice.mode,
        policy=choice.policy,
        runtime=runtime,
        session_id=request.session_id,
        warnings=warnings,
    )
