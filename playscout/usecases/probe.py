"""The model probe a use case makes on the command line before it opens the index: each model
server the ask or run calls answers and serves its model, so a dead one is known in a second.
A model that is not configured is left to the checks that need no network (`check_run`), which
the API makes too: a refusal then reads the same on both sides, naming every reason."""

from __future__ import annotations

import asyncio

from playscout.config import Settings
from playscout.runtime.preflight import Needs, check_models, require


def probe_models(settings: Settings, needs: Needs) -> list[str]:
    """Raises PreflightError for a server that is down, refuses the key or serves another
    model; returns the warnings (a server without a model list)."""
    checks = asyncio.run(check_models(settings, needs))
    return [w.detail for w in require([c for c in checks if c.state != "not configured"])]
