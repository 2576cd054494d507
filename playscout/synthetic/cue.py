"""An event as the commentator sees it: who did what, for which team, and how this sport says
numbers and scores ('nil' and 'Two nil.' in soccer, "It's two to one." elsewhere).

A sport's commentary function (SportSpec.talk.line) reads a Cue, so it needs neither the raw
event layout nor the broadcast renderer that speaks the line. `Talk` lives here, beside the Cue
its line reads, so this module needs nothing from spec.py (which imports Talk from here).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from playscout.corpus.numbers import number_word


def _surname(name: Any) -> str:
    return str(name).split()[-1] if name else "the defence"


@dataclass(frozen=True)
class Talk:
    """Spoken commentary: the line of an event, and how numbers and scores are said."""

    line: Callable[[Cue], str | None]  # None for routine plays
    zero: str  # 'nil' / 'nothing'
    tied: str  # {n}, {N} (capitalised): 'Nil all.' / 'Tied at two.'
    lead: str  # {hi}, {Hi}, {lo}: 'Two nil.' / "It's two to one."


@dataclass(frozen=True)
class Cue:
    event: dict[str, Any]
    talk: Talk

    @property
    def type(self) -> str:
        return str(self.event.get("type", ""))

    @property
    def attrs(self) -> dict[str, Any]:
        return self.event.get("attributes") or {}

    @property
    def player(self) -> str:
        """The player's surname."""
        return _surname(self.event.get("player"))

    @property
    def team(self) -> str:
        """The team's last name word ('Celtics', 'United')."""
        team = self.event.get("team")
        return str(team).split()[-1] if team else "them"

    def ref(self, key: str) -> str:
        """Surname of the player an attribute names (the assister, the goalie...)."""
        p = self.attrs.get(key)
        return _surname(p.get("name")) if isinstance(p, dict) else "the keeper"

    def pick(self, *options: str) -> str:
        """One of several phrasings, fixed per event so the line is deterministic."""
        return options[int(self.event["event_id"]) % len(options)]

    def num(self, n: int) -> str:
        if n == 0:
            return self.talk.zero
        return number_word(n)

    def score(self) -> str:
        """The score after the event, as said aloud."""
        h, a = int(self.event["home_score"]), int(self.event["away_score"])
        if h == a:
            n = self.num(h)
            return self.talk.tied.format(n=n, N=n.capitalize())
        hi, lo = self.num(max(h, a)), self.num(min(h, a))
        return self.talk.lead.format(hi=hi, Hi=hi.capitalize(), lo=lo)
