"""What a request that leaves a choice out gets, decided here and nowhere else: the request's
own value, then the settings (`serving.sport`, `serving.mode`, `serving.policy`: `serve
--sport/--mode/--policy`, a config file or PLAYSCOUT_SERVING__*), then the built-in default,
for a sport what the index holds. The CLI and the API ask the same functions, so `ask`,
`POST /v1/ask`, the chat facade, `eval run` and `POST /v1/runs` choose alike."""

from __future__ import annotations

from collections.abc import Sequence

from playscout.config import DEFAULT_MODE, DEFAULT_POLICY, Mode, Policy, ServingSettings
from playscout.runtime import SetupError


def mode_of(given: Mode | None, serving: ServingSettings) -> Mode:
    return given or serving.mode or DEFAULT_MODE


def policy_of(given: Policy | None, serving: ServingSettings) -> Policy:
    return given or serving.policy or DEFAULT_POLICY


def sport_of(given: str | None, serving: ServingSettings, held: Sequence[str]) -> str:
    """The request's sport, else `serving.sport`, else the first sport the index holds (its
    sports are sorted: basketball on the synthetic corpus)."""
    chosen = given or serving.sport or (held[0] if held else None)
    if chosen is None:
        raise SetupError("the index holds no sport: name one, or build the index of a corpus")
    return chosen
