"""What soccer events mean to the box score, the caption and the commentator.

Each function reads one event; the shared documents, captions and commentary code call them
through the sport's spec.
"""

from __future__ import annotations

from ...captions import ref, title, who
from ...cue import Cue
from ...spec import Event, Stats

SHOTS = ("goal", "shot saved", "shot missed", "shot blocked")


def tally(ev: Event, s: Stats, st: dict[str, Stats]) -> None:
    """Goals, assists, shots (on target), keeper saves, passes, tackles, cards and fouls."""
    t, a = ev["type"], ev["attributes"]
    if t in SHOTS:
        s["sh"] += 1
        if t in ("goal", "shot saved"):
            s["sot"] += 1
        if t == "goal":
            s["g"] += 1
            if a.get("assist"):
                st[a["assist"]["player_id"]]["a"] += 1
        if t == "shot saved":
            st[a["goalkeeper"]["player_id"]]["sv"] += 1
    elif t == "pass":
        s["pas"] += 1
    elif t == "tackle":
        s["tkl"] += 1
    elif t == "yellow card":
        s["yc"] += 1
    elif t == "red card":
        s["rc"] += 1
    elif t == "foul":
        s["fouls"] += 1


def action(ev: Event) -> str:
    a = ev["attributes"]
    t = ev["type"]
    if t in SHOTS:
        head = {
            "goal": "scored with a",
            "shot saved": "had a",
            "shot missed": "missed with a",
            "shot blocked": "had a",
        }[t]
        s = f"{who(ev)} {head} {a['body_part']} {a['shot_type']} from the {a['position']}"
        if a.get("skill_move"):
            s += f" after a {a['skill_move']}"
        s += f" following a {a['play_type']}"
        if a.get("assist"):
            s += f", assisted by {ref(a['assist'])}"
        if t == "shot saved":
            s += f", saved by {ref(a['goalkeeper'])}"
        elif t == "shot blocked":
            s += f", blocked by {ref(a['blocker'])}"
        return s
    if t == "pass":
        if a.get("pass_type"):
            return f"{who(ev)} played a {a['pass_type']} to {ref(a['receiver'])}"
        return f"{who(ev)} passed to {ref(a['receiver'])}"
    if t == "dribble":
        move = f" with a {a['skill_move']}" if a.get("skill_move") else ""
        return f"{who(ev)} dribbled past {ref(a['opponent'])}{move}"
    if t == "duel":
        return f"{who(ev)} won a duel against {ref(a['opponent'])}"
    if t == "tackle":
        return f"{who(ev)} tackled {ref(a['opponent'])} and won the ball"
    if t == "interception":
        return f"{who(ev)} intercepted a pass from {ref(a['opponent'])}"
    if t == "clearance":
        return f"{who(ev)} cleared the ball"
    if t == "foul":
        return f"{who(ev)} fouled {ref(a['fouled'])}"
    if t in ("yellow card", "red card"):
        return f"{who(ev)} was shown a {t}"
    if t == "offside":
        return f"{who(ev)} was caught offside"
    if t == "corner":
        return f"{who(ev)} took a corner kick"
    if t == "substitution":
        return f"{who(ev)} came on for {ref(a['replaced'])}"
    return f"{who(ev)} {t}"


def structured(ev: Event) -> str:
    a = ev["attributes"]
    return (
        f"{ev['player']} performed {title(ev['type'])} from {title(a['position'])} with a "
        f"{title(a['body_part'])} {title(a['shot_type'])} during a {title(a['play_type'])}."
    )


def line(c: Cue) -> str | None:
    t, s = c.type, c.player
    if t == "goal":
        return f"Goal for {c.team}! {s}. {c.score()}"
    if t == "shot saved":
        return f"{s} shoots, saved by {c.ref('goalkeeper')}."
    if t == "shot missed":
        return f"{s} fires wide."
    if t == "shot blocked":
        return f"{s} shoots, blocked."
    if t == "yellow card":
        return f"Yellow card for {s}."
    if t == "red card":
        return f"Red card! {s} is sent off."
    if t == "substitution":
        return f"Change for {c.team}, {s} comes on."
    if t == "corner":
        return f"Corner to {c.team}."
    if t == "offside":
        return f"{s} is offside."
    if t == "foul":
        return f"Foul by {s}."
    return None
