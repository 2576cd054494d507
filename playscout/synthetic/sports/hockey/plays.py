"""What hockey events mean to the box score, the caption and the commentator.

Each function reads one event; the shared documents, captions and commentary code call them
through the sport's spec.
"""

from __future__ import annotations

from ...captions import ref, title, who
from ...cue import Cue
from ...spec import Event, Stats


def tally(ev: Event, s: Stats, st: dict[str, Stats]) -> None:
    """Goals, assists, points, shots, +/-, goalie saves and goals against, PIM, hits, blocks."""
    t, a = ev["type"], ev["attributes"]
    if t == "goal":
        s["g"] += 1
        s["p"] += 1
        s["sog"] += 1
        for h in a.get("assists", []):
            st[h["player_id"]]["a"] += 1
            st[h["player_id"]]["p"] += 1
        scorer_team = ev["team_id"]
        for team_id, pids in a.get("on_ice", {}).items():
            for q in pids:
                st[q]["pm"] += 1 if team_id == scorer_team else -1
        for team_id, pids in a.get("on_ice", {}).items():
            if team_id != scorer_team and pids:
                st[pids[0]]["ga"] += 1
                st[pids[0]]["sa"] += 1
    elif t == "shot on goal":
        s["sog"] += 1
        g = a["goalie"]["player_id"]
        st[g]["sv"] += 1
        st[g]["sa"] += 1
    elif t == "blocked shot":
        st[a["blocker"]["player_id"]]["blk"] += 1
    elif t == "penalty":
        s["pim"] += a["minutes"]
    elif t == "hit":
        s["hits"] += 1
    elif t == "faceoff":
        s["fow"] += 1


def action(ev: Event) -> str:
    a = ev["attributes"]
    t = ev["type"]
    if t == "goal":
        s = f"{who(ev)} scored a goal with a {a['shot_type']} from the {a['zone']}"
        if a.get("deke"):
            s += f" after a {a['deke']}"
        s += f" on a {a['play_type']}"
        assists = a.get("assists") or []
        if assists:
            s += ", assisted by " + " and ".join(ref(p) for p in assists)
        return s
    if t == "shot on goal":
        s = f"{who(ev)} fired a {a['shot_type']} from the {a['zone']}"
        if a.get("deke"):
            s += f" after a {a['deke']}"
        return s + f" on a {a['play_type']}, saved by {ref(a['goalie'])}"
    if t == "missed shot":
        return f"{who(ev)} missed the net with a {a['shot_type']} from the {a['zone']}"
    if t == "blocked shot":
        return (
            f"{who(ev)} had a {a['shot_type']} from the {a['zone']} blocked by {ref(a['blocker'])}"
        )
    if t == "faceoff":
        return f"{who(ev)} won the faceoff against {ref(a['opponent'])}"
    if t == "pass":
        return f"{who(ev)} passed to {ref(a['receiver'])} in the {a['area']}"
    if t == "hit":
        return f"{who(ev)} delivered a hit on {ref(a['target'])}"
    if t == "takeaway":
        return f"{who(ev)} took the puck away from {ref(a['opponent'])}"
    if t == "giveaway":
        return f"{who(ev)} gave the puck away in the {a['area']}"
    if t == "puck battle":
        return f"{who(ev)} won a puck battle along the boards against {ref(a['opponent'])}"
    if t == "penalty":
        return f"{who(ev)} was called for {a['penalty']} ({a['minutes']} minutes)"
    return f"{who(ev)} {t}"


def structured(ev: Event) -> str:
    a = ev["attributes"]
    return (
        f"{ev['player']} performed {title(ev['type'])} from {title(a['zone'])} with a "
        f"{title(a['shot_type'])} during a {title(a['play_type'])}."
    )


def line(c: Cue) -> str | None:
    t, a, s = c.type, c.attrs, c.player
    if t == "goal":
        return f"Goal! {s} scores for the {c.team}! {c.score()}"
    if t == "shot on goal":
        return f"{s} shoots, saved by {c.ref('goalie')}."
    if t == "missed shot":
        return f"{s} shoots wide."
    if t == "blocked shot":
        return f"Blocked by {c.ref('blocker')}."
    if t == "penalty":
        return (
            f"{s}, {c.num(int(a.get('minutes', 2)))} minutes for {a.get('penalty', 'a penalty')}."
        )
    if t == "hit":
        return f"Big hit by {s}."
    return None
