"""What basketball events mean to the box score, the caption and the commentator.

Each function reads one event; the shared documents, captions and commentary code call them
through the sport's spec.
"""

from __future__ import annotations

from ...captions import ref, title, who
from ...cue import Cue
from ...spec import Event, Stats


def tally(ev: Event, s: Stats, st: dict[str, Stats]) -> None:
    """Points, shooting splits, rebounds, assists, steals, blocks, turnovers and fouls."""
    t, a = ev["type"], ev["attributes"]
    if t[1:3] == "PT":
        s["fga"] += 1
        three = t[0] == "3"
        if three:
            s["tpa"] += 1
        if t.endswith("made"):
            s["fgm"] += 1
            s["pts"] += 3 if three else 2
            if three:
                s["tpm"] += 1
            if a.get("assist"):
                st[a["assist"]["player_id"]]["ast"] += 1
        if a.get("blocked_by"):
            st[a["blocked_by"]["player_id"]]["blk"] += 1
    elif t.startswith("free throw"):
        s["fta"] += 1
        if t.endswith("made"):
            s["ftm"] += 1
            s["pts"] += 1
    elif t == "rebound":
        s["reb"] += 1
    elif t == "turnover":
        s["tov"] += 1
        if a.get("stolen_by"):
            st[a["stolen_by"]["player_id"]]["stl"] += 1
    elif t == "foul":
        s["pf"] += 1


def action(ev: Event) -> str:
    a = ev["attributes"]
    t = ev["type"]
    if t in ("2PT made", "2PT missed", "3PT made", "3PT missed"):
        verb = "made" if t.endswith("made") else "missed"
        kind = "a three-point " + a["shot_type"] if t.startswith("3PT") else "a " + a["shot_type"]
        s = f"{who(ev)} {verb} {kind} from the {a['zone']}"
        if a.get("dribble_move"):
            s += f" off a {a['dribble_move']}"
        s += f" on a {a['play_type']} play"
        if a.get("assist"):
            s += f", assisted by {ref(a['assist'])}"
        if a.get("blocked_by"):
            s += f", blocked by {ref(a['blocked_by'])}"
        return s
    if t in ("free throw made", "free throw missed"):
        verb = "made" if t.endswith("made") else "missed"
        return f"{who(ev)} {verb} free throw {a['ft_index']} of {a['ft_total']}"
    if t == "rebound":
        return f"{who(ev)} grabbed {'an offensive' if a['offensive'] else 'a defensive'} rebound"
    if t == "turnover":
        if a.get("stolen_by"):
            return f"{ref(a['stolen_by'])} stole the ball from {who(ev)}"
        return f"{who(ev)} committed a turnover ({a['kind']})"
    if t == "foul":
        return f"{who(ev)} committed a {a['kind']} foul on {ref(a['fouled'])}"
    if t == "pass":
        return f"{who(ev)} passed to {ref(a['receiver'])}"
    if t == "timeout":
        return f"the {ev['team']} called a timeout"
    return f"{who(ev)} {t}"


def structured(ev: Event) -> str:
    a = ev["attributes"]
    t = ev["type"].replace("PT", " PT").replace(" made", " Made").replace(" missed", " Missed")
    s = f"{ev['player']} performed {t} from {title(a['zone'])} with a {title(a['shot_type'])}"
    return s + f" during a {title(a['play_type'])}."


def line(c: Cue) -> str | None:
    t, a, s = c.type, c.attrs, c.player
    if t == "3PT made":
        return c.pick(f"{s} hits the three!", f"{s} from downtown!", f"Three for {s}!")
    if t == "2PT made":
        if a.get("shot_type") == "dunk":
            return f"{s} throws it down!"
        return c.pick(
            f"{s} scores.", f"{s} with the {a.get('shot_type', 'bucket')}.", f"Two for {s}."
        )
    if t == "3PT missed":
        return c.pick(f"{s} misses the three.", f"{s} for three, no good.")
    if t == "2PT missed":
        return (
            f"Blocked by {c.ref('blocked_by')}!"
            if a.get("blocked_by")
            else c.pick(f"{s} misses.", f"{s} can't get it to fall.")
        )
    if t == "free throw made" and a.get("ft_index") == a.get("ft_total"):
        return f"{s} hits the free throw."
    if t == "free throw missed":
        return f"{s} misses the free throw."
    if t == "foul":
        return f"Foul on {s}."
    if t == "turnover":
        return f"Stolen by {c.ref('stolen_by')}!" if a.get("stolen_by") else f"Turnover, {s}."
    if t == "timeout":
        return f"Timeout, {c.team}."
    return None
