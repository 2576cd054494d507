"""Preflight: what a run needs, checked before any work starts. Each model endpoint the run will
call must answer `GET /models` and list the configured model; the index must hold every sport
asked for and the clip channel the mode searches; a task that calls video_qa itself needs a
VLM and the clip media. The CLI (`ask`, `eval run`, `eval judge`, `serve`) and the API's
`/readyz` share these checks, so "ready" means the same thing everywhere.

A failed check is one line naming the setting to change. `require` turns the first failed
check into a `PreflightError` (CLI: `error: ...`, exit 2) and hands back the warnings."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal

from playscout.clients.chat import ModelError
from playscout.clients.models import NoModelList, served_models
from playscout.config import (
    DEFAULT_MODE,
    Mode,
    ModelEndpoint,
    Policy,
    QueryTowerEndpoint,
    Settings,
    redact_urls,
)
from playscout.config.presets import Preset
from playscout.runtime import Runtime, SetupError
from playscout.search.core.rules import unknown_sport
from playscout.tools.registry import MODEL_ROLES, REGISTRY
from playscout.tools.search import missing_clip_channel

PROBE_TIMEOUT_S = 5.0
Severity = Literal["ok", "warning", "error"]
# What an endpoint check found; "ok" and "not configured" are not failures.
State = Literal["ok", "not configured", "unreachable", "refused", "no model list", "wrong model"]


@dataclass(frozen=True)
class Role:
    """A model endpoint a run may call: its setting path and what it is for."""

    path: str
    what: str
    endpoint: Callable[[Settings], ModelEndpoint]


ROLES: dict[str, Role] = {
    "agent": Role("agent.llm", "the agent's model", lambda s: s.agent.llm),
    **{
        r.name: Role(r.path, r.what, lambda s, r=r: r.endpoint(s.qa))  # type: ignore[misc]
        for r in MODEL_ROLES
    },
    "judge": Role("eval.judge", "the LLM judge", lambda s: s.eval.judge),
}
"""Every endpoint a run may call: the agent's, each tool's (declared with the tool:
tools/declare.model_role), the judge's."""


# The required endpoints, and what a run can do instead of configuring one.
OTHERWISE = {"agent": "or use the workflow policy", "judge": "or use the equivalence judge"}


@dataclass(frozen=True)
class Check:
    """One finding. `state` is the endpoint's (or "ok"/"missing" for index checks)."""

    name: str
    severity: Severity
    detail: str
    state: str = "ok"
    url: str | None = None

    @property
    def failed(self) -> bool:
        return self.severity == "error"


class PreflightError(SetupError):
    """A run that would fail at once (model down, unknown sport, index without what the mode
    needs): stopped before it starts, with the reason. `check` is the first failed check (the
    API picks its error code by it)."""

    def __init__(self, message: str, check: Check | None = None) -> None:
        super().__init__(message)
        self.check = check


@dataclass(frozen=True)
class Needs:
    """What a run will use; preflight checks exactly these.

    `tools` are the tools the run calls. `direct`: a task calls them itself, so a tool that
    cannot work fails every item (error); with the agent choosing (`direct=False`) a QA tool
    without its model is a warning, since the agent can still answer from what it finds,
    unless the run is `scored`: a benchmark run's answers are its result, so a tool it offers
    that cannot work (default mode's video_qa without a VLM) is an error, as a dead model
    server is. Clip search without its channel is an error either way: the agent could never
    reach a clip.
    """

    sports: tuple[str, ...] = ()
    mode: Mode = DEFAULT_MODE
    agent: bool = False
    tools: frozenset[str] = field(default_factory=frozenset)
    direct: bool = False
    judge: bool = False
    scored: bool = False

    def roles(self) -> list[str]:
        """The model endpoints this run calls (when configured): each tool's roles for the
        mode, as the tool declares them."""
        roles = ["agent"] if self.agent else []
        for tool in REGISTRY.values():
            if tool.name in self.tools:
                roles += [r.name for r in tool.roles_for(self.mode)]
        return list(dict.fromkeys(roles + (["judge"] if self.judge else [])))


async def check_endpoint(
    name: str, endpoint: ModelEndpoint, what: str = "", timeout_s: float = PROBE_TIMEOUT_S
) -> Check:
    """Does `endpoint` answer and serve its model? An unconfigured endpoint is "not configured"
    (severity ok: whether the run may do without it is the caller's call)."""
    label = what or name
    if not endpoint.configured:
        return Check(name, "ok", f"{label}: not configured", "not configured")
    where = redact_urls(endpoint.base_url)
    if isinstance(endpoint, QueryTowerEndpoint) and endpoint.api == "text-tower":
        return await _check_tower(name, endpoint, label, where, timeout_s)
    try:
        served = await served_models(endpoint, timeout_s)
    except NoModelList as e:
        note = f"{label}: {e}; model {endpoint.model!r} not checked"
        return Check(name, "warning", note, "no model list", where)
    except ModelError as e:
        state: State = "unreachable" if e.retryable else "refused"
        return Check(name, "error", f"{label}: {e}", state, where)
    if endpoint.model not in served:
        listed = ", ".join(repr(m) for m in served[:10]) or "nothing"
        detail = f"{label}: {where} serves {listed}, not {endpoint.model!r}"
        return Check(name, "error", detail, "wrong model", where)
    return Check(name, "ok", f"{label}: {where} serves {endpoint.model!r}", "ok", where)


async def _check_tower(
    name: str, endpoint: QueryTowerEndpoint, label: str, where: str, timeout_s: float
) -> Check:
    """The reference's text-tower server has no model list: its /health must say a model is
    loaded and that it is not the --mock mode (random vectors)."""
    from playscout.embed import EmbeddingError
    from playscout.embed.text_tower import tower_health

    try:
        await asyncio.to_thread(tower_health, endpoint.base_url, timeout_s)
    except EmbeddingError as e:
        state: State = "refused" if "mock" in str(e) or "no model" in str(e) else "unreachable"
        return Check(name, "error", f"{label}: {redact_urls(str(e))}", state, where)
    return Check(
        name, "ok", f"{label}: {where} serves a text tower ({endpoint.model!r})", "ok", where
    )


def _unconfigured(name: str) -> Check:
    """A required endpoint (the agent's model, the judge) that is not configured."""
    role = ROLES[name]
    what = f"{role.what} ({role.path})"
    detail = f"{what} is not configured: set its base_url and model, {OTHERWISE[name]}"
    return Check(name, "error", detail, "not configured")


async def check_models(
    settings: Settings, needs: Needs, timeout_s: float = PROBE_TIMEOUT_S
) -> list[Check]:
    """Every endpoint the run calls, probed concurrently. The agent's model under the llm
    policy and the judge when asked for are required; the QA models fall back to offline
    readers when unconfigured, except the VLM (see `check_index`)."""

    async def one(name: str) -> Check:
        role = ROLES[name]
        endpoint, what = role.endpoint(settings), f"{role.what} ({role.path})"
        if name in OTHERWISE and not endpoint.configured:
            return _unconfigured(name)
        return await check_endpoint(name, endpoint, what, timeout_s)

    return list(await asyncio.gather(*(one(name) for name in needs.roles())))


def check_run(runtime: Runtime, needs: Needs) -> list[Check]:
    """The checks that need no network: every required model is configured (an agent client
    the runtime was given counts) and the index holds what the run searches (`check_index`).
    The CLI runs them after probing the models; the API before every ask and batch run, so a
    run either side refuses is refused with the same line (a 4xx over HTTP, exit 2 on the CLI).
    """
    checks = []
    for name in needs.roles():
        if name not in OTHERWISE:
            continue
        have = (
            runtime.llm is not None
            if name == "agent"
            else ROLES[name].endpoint(runtime.settings).configured
        )
        if not have:
            checks.append(_unconfigured(name))
    return checks + (check_index(runtime, needs) if runtime.backend is not None else [])


def ask_needs(
    preset: Preset,
    sport: str | None,
    mode: Mode,
    policy: Policy,
    tools: Iterable[str] | None = None,
) -> Needs:
    """What one ask needs (`usecases.prepare_ask`, the API's model aliases): the agent's
    model under the llm policy, and the tools the agent is offered (`tools`, when a runtime
    was given its own, else the preset's for the mode). No sport: the model probe, which
    runs before the index is opened."""
    offered = frozenset(tools) if tools is not None else preset.tool_names(mode)
    sports = (sport,) if sport is not None else ()
    return Needs(sports=sports, mode=mode, agent=policy == "llm", tools=offered)


def check_index(runtime: Runtime, needs: Needs) -> list[Check]:
    """The sports exist; the mode's clip channel is there when clips are searched; a tool's
    model with no offline reader behind it (default-mode video_qa's VLM) is configured;
    default-mode video_qa has the clip media."""
    backend = runtime.require_backend()
    have = backend.sports()
    checks = []
    for sport in needs.sports:
        if sport not in have:
            checks.append(Check("sport", "error", str(unknown_sport(sport, have)), "missing"))
        elif "search_videos" in needs.tools:
            missing = missing_clip_channel(backend, sport, needs.mode)
            if missing is not None:
                checks.append(Check("clips", "error", missing, "missing"))
    severity: Severity = "error" if needs.direct or needs.scored else "warning"
    for tool in REGISTRY.values():
        if tool.name not in needs.tools:
            continue
        for role in tool.roles_for(needs.mode):  # a model with no offline reader behind it
            if role.kind == "embedding":
                continue  # a query tower is needed only by vectors without one: the clip check
            if not role.offline and not role.endpoint(runtime.settings.qa).configured:
                other = " or use oracle mode" if tool.roles_for("oracle") != tool.roles else ""
                detail = f"{tool.name} has no {role.noun} ({role.path}): its calls will fail; configure one{other}"
                checks.append(Check(tool.name, severity, detail, "not configured"))
    if "video_qa" in needs.tools and needs.mode == "default" and runtime.corpus is None:
        detail = "video_qa has no clip media: pass the corpus root (corpus_dir)"
        checks.append(Check("video_qa", severity, detail, "missing"))
    return checks


def preflight(runtime: Runtime, needs: Needs, timeout_s: float = PROBE_TIMEOUT_S) -> list[Check]:
    """Index checks first (no network), then the model endpoints; for synchronous callers."""
    index = check_index(runtime, needs) if runtime.backend is not None else []
    return index + asyncio.run(check_models(runtime.settings, needs, timeout_s))


def require(checks: list[Check]) -> list[Check]:
    """Raises PreflightError naming every failed check, in one line (the first decides the
    API's error code); returns the warnings."""
    failed = [c for c in checks if c.failed]
    if failed:
        raise PreflightError(f"preflight: {'; '.join(c.detail for c in failed)}", failed[0])
    return [c for c in checks if c.severity == "warning"]


def as_warnings(checks: list[Check]) -> list[Check]:
    """A server may start before its models (compose, `serve models`): what would stop a run
    only warns there, and `/readyz` keeps reporting it until it is fixed."""
    return [
        Check(c.name, "warning", c.detail, c.state, c.url) if c.failed else c
        for c in checks
        if c.severity != "ok"
    ]
