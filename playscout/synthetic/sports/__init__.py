"""The sports the synthetic corpus knows, by name: each is one package whose SPEC holds every
sport-specific choice (see playscout/synthetic/spec.py).

Adding a sport is adding a package here and its name to SPECS (plus its scoreboard Board in
playscout/corpus/match_state.py and its name in playscout.corpus.models.SPORTS); the shared
simulator, writer, documents, questions and renderer code read the spec and need no edit.
"""

from __future__ import annotations

from ..spec import SportSpec
from .basketball import SPEC as BASKETBALL
from .hockey import SPEC as HOCKEY
from .soccer import SPEC as SOCCER

SPECS: dict[str, SportSpec] = {s.name: s for s in (BASKETBALL, HOCKEY, SOCCER)}

__all__ = ["SPECS", "SportSpec"]
