"""The model aliases of the OpenAI facade, and whether an ask's choice can run here.

A stock OpenAI client sends only `model` and `messages`, so the server chooses for it: its
defaults (`serve --sport/--mode/--policy`, settings `serving.sport`, `serving.mode`,
`serving.policy`; usecases/defaults.py) and the facade's model aliases, one per sport, mode
and policy (`playscout-oracle-workflow`, `playscout-hockey-oracle-workflow`). A request's own
fields win over its model's alias, and the alias over the server's defaults.

Whether a choice can run is decided by the checks every ask runs before it starts
(`usecases.ask.ask_checks`): an ask that fails them is a 400 with the CLI's line, and
`GET /v1/models` lists only the aliases that pass them."""

from __future__ import annotations

from playscout.config import MODES, POLICIES
from playscout.runtime.preflight import Check, require
from playscout.serving.state import ServingState
from playscout.usecases.ask import Choice, ask_checks, default_choice

AGENT_MODEL = "playscout-agent"  # the server's defaults
PREFIX = "playscout"


def server_default(state: ServingState) -> Choice:
    """What an ask that names nothing runs on this server."""
    return default_choice(state.settings.serving, state.sports)


def alias_table(default: Choice, sports: list[str]) -> dict[str, Choice]:
    """Every model name this server answers to: `playscout-agent` (the defaults),
    `playscout-{mode}-{policy}` (the default sport) and `playscout-{sport}-{mode}-{policy}`."""
    table = {AGENT_MODEL: default}
    for mode in MODES:
        for policy in POLICIES:
            table[f"{PREFIX}-{mode}-{policy}"] = Choice(default.sport, mode, policy)
    for sport in sports:
        for mode in MODES:
            for policy in POLICIES:
                table[f"{PREFIX}-{sport}-{mode}-{policy}"] = Choice(sport, mode, policy)
    return table


def aliases(state: ServingState) -> dict[str, Choice]:
    return alias_table(server_default(state), state.sports)


def checks(state: ServingState, choice: Choice) -> list[Check]:
    """Every ask's checks that need no network, for this server's runtime: the tools it
    offers, its agent model, its index."""
    return ask_checks(state.runtime, choice)


def require_runnable(state: ServingState, choice: Choice) -> None:
    """Raises PreflightError (a 400 whose code names the cause) when the choice cannot run."""
    require(checks(state, choice))


def runnable(state: ServingState, choice: Choice) -> bool:
    return not any(c.failed for c in checks(state, choice))


def listed(state: ServingState) -> dict[str, Choice]:
    """The aliases `GET /v1/models` lists: those that can run here. `playscout-agent` is
    always listed (a request for it that cannot run says why); the sport-qualified names are
    left out when the default sport is the index's only one (they would repeat the others)."""
    default = server_default(state)
    short = alias_table(default, [])
    repeat = state.sports == [default.sport]
    out = {}
    for name, choice in aliases(state).items():
        if name == AGENT_MODEL or (not (repeat and name not in short) and runnable(state, choice)):
            out[name] = choice
    return out
