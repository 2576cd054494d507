"""Event captions in the reference style (T9 §1.5: clock, period, player with number, action,
matchup, running score), plus the structured "X performed 2 PT Made ..." sentence for shots.

Captions are the only place clip-level attributes are spelled out, so the question generator
and its tests look answer values up here.
"""

from __future__ import annotations

from typing import Any

from .vocab import SPECS, period_label

Event = dict[str, Any]


def spoken_clock(seconds: float) -> str:
    s = max(0, int(seconds))
    return f"{s // 60}:{s % 60:02d}"


def _who(ev: Event) -> str:
    return f"{ev['player']} (#{ev['number']})"


def _ref(p: dict[str, Any] | None) -> str:
    return f"{p['name']} (#{p['number']})" if p else ""


def _title(s: str) -> str:
    return " ".join(w[:1].upper() + w[1:] for w in s.replace("-", " ").split())


def _bb_action(ev: Event) -> str:
    a = ev["attributes"]
    t = ev["type"]
    if t in ("2PT made", "2PT missed", "3PT made", "3PT missed"):
        verb = "made" if t.endswith("made") else "missed"
        kind = "a three-point " + a["shot_type"] if t.startswith("3PT") else "a " + a["shot_type"]
        s = f"{_who(ev)} {verb} {kind} from the {a['zone']}"
        if a.get("dribble_move"):
            s += f" off a {a['dribble_move']}"
        s += f" on a {a['play_type']} play"
        if a.get("assist"):
            s += f", assisted by {_ref(a['assist'])}"
        if a.get("blocked_by"):
            s += f", blocked by {_ref(a['blocked_by'])}"
        return s
    if t in ("free throw made", "free throw missed"):
        verb = "made" if t.endswith("made") else "missed"
        return f"{_who(ev)} {verb} free throw {a['ft_index']} of {a['ft_total']}"
    if t == "rebound":
        return f"{_who(ev)} grabbed {'an offensive' if a['offensive'] else 'a defensive'} rebound"
    if t == "turnover":
        if a.get("stolen_by"):
            return f"{_ref(a['stolen_by'])} stole the ball from {_who(ev)}"
        return f"{_who(ev)} committed a turnover ({a['kind']})"
    if t == "foul":
        return f"{_who(ev)} committed a {a['kind']} foul on {_ref(a['fouled'])}"
    if t == "pass":
        return f"{_who(ev)} passed to {_ref(a['receiver'])}"
    if t == "timeout":
        return f"the {ev['team']} called a timeout"
    return f"{_who(ev)} {t}"


def _hk_action(ev: Event) -> str:
    a = ev["attributes"]
    t = ev["type"]
    if t == "goal":
        s = f"{_who(ev)} scored a goal with a {a['shot_type']} from the {a['zone']}"
        if a.get("deke"):
            s += f" after a {a['deke']}"
        s += f" on a {a['play_type']}"
        assists = a.get("assists") or []
        if assists:
            s += ", assisted by " + " and ".join(_ref(p) for p in assists)
        return s
    if t == "shot on goal":
        s = f"{_who(ev)} fired a {a['shot_type']} from the {a['zone']}"
        if a.get("deke"):
            s += f" after a {a['deke']}"
        return s + f" on a {a['play_type']}, saved by {_ref(a['goalie'])}"
    if t == "missed shot":
        return f"{_who(ev)} missed the net with a {a['shot_type']} from the {a['zone']}"
    if t == "blocked shot":
        return f"{_who(ev)} had a {a['shot_type']} from the {a['zone']} blocked by {_ref(a['blocker'])}"
    if t == "faceoff":
        return f"{_who(ev)} won the faceoff against {_ref(a['opponent'])}"
    if t == "pass":
        return f"{_who(ev)} passed to {_ref(a['receiver'])} in the {a['area']}"
    if t == "hit":
        return f"{_who(ev)} delivered a hit on {_ref(a['target'])}"
    if t == "takeaway":
        return f"{_who(ev)} took the puck away from {_ref(a['opponent'])}"
    if t == "giveaway":
        return f"{_who(ev)} gave the puck away in the {a['area']}"
    if t == "puck battle":
        return f"{_who(ev)} won a puck battle along the boards against {_ref(a['opponent'])}"
    if t == "penalty":
        return f"{_who(ev)} was called for {a['penalty']} ({a['minutes']} minutes)"
    return f"{_who(ev)} {t}"


def _sc_action(ev: Event) -> str:
    a = ev["attributes"]
    t = ev["type"]
    if t in ("goal", "shot saved", "shot missed", "shot blocked"):
        head = {
            "goal": "scored with a",
            "shot saved": "had a",
            "shot missed": "missed with a",
            "shot blocked": "had a",
        }[t]
        s = f"{_who(ev)} {head} {a['body_part']} {a['shot_type']} from the {a['position']}"
        if a.get("skill_move"):
            s += f" after a {a['skill_move']}"
        s += f" following a {a['play_type']}"
        if a.get("assist"):
            s += f", assisted by {_ref(a['assist'])}"
        if t == "shot saved":
            s += f", saved by {_ref(a['goalkeeper'])}"
        elif t == "shot blocked":
            s += f", blocked by {_ref(a['blocker'])}"
        return s
    if t == "pass":
        if a.get("pass_type"):
            return f"{_who(ev)} played a {a['pass_type']} to {_ref(a['receiver'])}"
        return f"{_who(ev)} passed to {_ref(a['receiver'])}"
    if t == "dribble":
        move = f" with a {a['skill_move']}" if a.get("skill_move") else ""
        return f"{_who(ev)} dribbled past {_ref(a['opponent'])}{move}"
    if t == "duel":
        return f"{_who(ev)} won a duel against {_ref(a['opponent'])}"
    if t == "tackle":
        return f"{_who(ev)} tackled {_ref(a['opponent'])} and won the ball"
    if t == "interception":
        return f"{_who(ev)} intercepted a pass from {_ref(a['opponent'])}"
    if t == "clearance":
        return f"{_who(ev)} cleared the ball"
    if t == "foul":
        return f"{_who(ev)} fouled {_ref(a['fouled'])}"
    if t in ("yellow card", "red card"):
        return f"{_who(ev)} was shown a {t}"
    if t == "offside":
        return f"{_who(ev)} was caught offside"
    if t == "corner":
        return f"{_who(ev)} took a corner kick"
    if t == "substitution":
        return f"{_who(ev)} came on for {_ref(a['replaced'])}"
    return f"{_who(ev)} {t}"


_ACTIONS = {"basketball": _bb_action, "hockey": _hk_action, "soccer": _sc_action}


def structured(sport: str, ev: Event) -> str:
    """Second caption sentence for scoring attempts, in the T9 video-QA answer style."""
    a = ev["attributes"]
    if sport == "basketball":
        t = ev["type"].replace("PT", " PT").replace(" made", " Made").replace(" missed", " Missed")
        s = f"{ev['player']} performed {t} from {_title(a['zone'])} with a {_title(a['shot_type'])}"
        return s + f" during a {_title(a['play_type'])}."
    if sport == "hockey":
        return (
            f"{ev['player']} performed {_title(ev['type'])} from {_title(a['zone'])} with a "
            f"{_title(a['shot_type'])} during a {_title(a['play_type'])}."
        )
    return (
        f"{ev['player']} performed {_title(ev['type'])} from {_title(a['position'])} with a "
        f"{_title(a['body_part'])} {_title(a['shot_type'])} during a {_title(a['play_type'])}."
    )


def caption(sport: str, ev: Event, home: str, away: str) -> str:
    period = period_label(sport, ev["period"])
    if sport == "soccer":
        lead = f"At {ev['clock']} of the {period}"
    else:
        when = spoken_clock(ev["clock_seconds"])
        the = "" if ev["period"] > SPECS[sport].periods else "the "
        lead = f"With {when} left in {the}{period}"
    text = (
        f"{lead}, {_ACTIONS[sport](ev)} during the matchup between {home} and {away}, "
        f"with the current score standing at {ev['home_score']}-{ev['away_score']}."
    )
    if "shot_type" in ev["attributes"]:
        text += " " + structured(sport, ev)
    return text
