"""Event captions in the reference style (reference §1.5: clock, period, player with number, action,
matchup, running score), plus the structured "X performed 2 PT Made ..." sentence for shots.

Captions are the only place clip-level attributes are spelled out, so the question generator
and its tests look answer values up here. The action clause and the structured sentence are the
sport's (SportSpec.action / .structured, built from the helpers below); the frame around them
follows the sport's clock rule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .spec import SportSpec

Event = dict[str, Any]


def spoken_clock(seconds: float) -> str:
    s = max(0, int(seconds))
    return f"{s // 60}:{s % 60:02d}"


def who(ev: Event) -> str:
    """'Jalen Brooks (#7)': the event's player."""
    return f"{ev['player']} (#{ev['number']})"


def ref(p: dict[str, Any] | None) -> str:
    """A player an attribute names (assister, blocker, goalie...), with number."""
    return f"{p['name']} (#{p['number']})" if p else ""


def title(s: str) -> str:
    """'pick-and-roll' -> 'Pick And Roll' (the structured sentence's casing)."""
    return " ".join(w[:1].upper() + w[1:] for w in s.replace("-", " ").split())


def caption(spec: SportSpec, ev: Event, home: str, away: str) -> str:
    period = spec.period_label(ev["period"])
    if spec.board.countdown:
        when = spoken_clock(ev["clock_seconds"])
        the = "" if ev["period"] > spec.board.regulation_periods else "the "
        lead = f"With {when} left in {the}{period}"
    else:
        lead = f"At {ev['clock']} of the {period}"
    text = (
        f"{lead}, {spec.action(ev)} during the matchup between {home} and {away}, "
        f"with the current score standing at {ev['home_score']}-{ev['away_score']}."
    )
    if "shot_type" in ev["attributes"]:
        text += " " + spec.structured(ev)
    return text
