"""Box scores, team stats, recaps and season documents, all computed from the events.

Documents carry only game/season-level facts (scores, records, streaks, stat lines); clip-level
attributes (shot types, zones, play types, moves) are never written here, so they stay
video-only answers.
"""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Any

from .vocab import (
    NUMBER_WORDS,
    SPECS,
    TeamRef,
    article,
    full_ref,
    ordinal_word,
    period_label,
    plural,
    short_refs,
)

Stats = dict[str, int]

# Per sport: (stat key, label) in the order they are printed in game_stat_player lines.
PLAYER_FIELDS: dict[str, tuple[tuple[str, str], ...]] = {
    "basketball": (
        ("pts", "points"),
        ("reb", "rebounds"),
        ("ast", "assists"),
        ("stl", "steals"),
        ("blk", "blocks"),
        ("tov", "turnovers"),
    ),
    "hockey": (
        ("g", "goals"),
        ("a", "assists"),
        ("p", "points"),
        ("sog", "shots"),
        ("pim", "PIM"),
        ("hits", "hits"),
        ("blk", "blocked shots"),
        ("fow", "faceoffs won"),
    ),
    "soccer": (
        ("g", "goals"),
        ("a", "assists"),
        ("sh", "shots"),
        ("sot", "on target"),
        ("pas", "passes"),
        ("tkl", "tackles"),
        ("yc", "yellow cards"),
        ("rc", "red cards"),
    ),
}
GOALIE_FIELDS: dict[str, tuple[tuple[str, str], ...]] = {
    "hockey": (("sv", "saves"), ("sa", "shots against"), ("ga", "goals against")),
    "soccer": (
        ("g", "goals"),
        ("sv", "saves"),
        ("pas", "passes"),
        ("yc", "yellow cards"),
        ("rc", "red cards"),
    ),
}
SCORE_WORD = {"basketball": "points", "hockey": "goals", "soccer": "goals"}


def _ref_id(a: dict[str, Any], key: str) -> str | None:
    v = a.get(key)
    return v["player_id"] if v else None


def box_score(sport: str, pbp: dict[str, Any]) -> dict[str, Stats]:
    """Per-player counting stats from the events (the single source of truth)."""
    st: dict[str, Stats] = defaultdict(lambda: defaultdict(int))
    home = pbp["home_team_id"]
    for ev in pbp["events"]:
        t, a, pid = ev["type"], ev["attributes"], ev["player_id"]
        if pid is None:
            continue
        s = st[pid]
        if sport == "basketball":
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
        elif sport == "hockey":
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
        else:
            if t in ("goal", "shot saved", "shot missed", "shot blocked"):
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
    del home
    return {k: dict(v) for k, v in st.items()}


def _pm(v: int) -> str:
    return f"+{v}" if v > 0 else str(v)


def player_line(sport: str, name: str, s: Stats, secs: float, position: str) -> str:
    g = s.get
    if sport == "basketball":
        parts = [f"{g(k, 0)} {label}" for k, label in PLAYER_FIELDS[sport]]
        parts += [
            f"{g('fgm', 0)}-{g('fga', 0)} FG",
            f"{g('tpm', 0)}-{g('tpa', 0)} 3PT",
            f"{g('ftm', 0)}-{g('fta', 0)} FT",
            f"{round(secs / 60)} minutes",
        ]
    elif sport == "hockey":
        fields = GOALIE_FIELDS[sport] if position == "G" else PLAYER_FIELDS[sport]
        parts = [f"{g(k, 0)} {label}" for k, label in fields]
        if position != "G":
            parts.append(f"{_pm(g('pm', 0))} +/-")
        parts.append(f"{int(secs) // 60}:{int(secs) % 60:02d} TOI")
    else:
        fields = GOALIE_FIELDS[sport] if position == "GK" else PLAYER_FIELDS[sport]
        parts = [f"{g(k, 0)} {label}" for k, label in fields]
        parts.append(f"{round(secs / 60)} minutes")
    return f"{name}: " + ", ".join(parts)


def team_totals(sport: str, pbp: dict[str, Any], box: dict[str, Stats]) -> dict[str, Stats]:
    out: dict[str, Stats] = {
        pbp["home_team_id"]: defaultdict(int),
        pbp["away_team_id"]: defaultdict(int),
    }
    for p in pbp["players"]:
        for k, v in box.get(p["player_id"], {}).items():
            if k not in ("pm", "ga", "sa", "sv") or sport == "soccer":
                out[p["team_id"]][k] += v
    for ev in pbp["events"]:
        if ev["type"] in ("timeout", "corner", "offside"):
            out[ev["team_id"]][ev["type"] + "s"] += 1
    return {k: dict(v) for k, v in out.items()}


TEAM_FIELDS: dict[str, tuple[tuple[str, str], ...]] = {
    "basketball": (
        ("reb", "Rebounds"),
        ("ast", "Assists"),
        ("stl", "Steals"),
        ("blk", "Blocks"),
        ("tov", "Turnovers"),
        ("pf", "Fouls"),
        ("timeouts", "Timeouts"),
    ),
    "hockey": (
        ("sog", "Shots on goal"),
        ("pim", "Penalty minutes"),
        ("hits", "Hits"),
        ("blk", "Blocked shots"),
        ("fow", "Faceoffs won"),
    ),
    "soccer": (
        ("sh", "Shots"),
        ("sot", "Shots on target"),
        ("pas", "Passes"),
        ("tkl", "Tackles"),
        ("fouls", "Fouls"),
        ("corners", "Corners"),
        ("offsides", "Offsides"),
        ("yc", "Yellow cards"),
        ("rc", "Red cards"),
    ),
}


def _pct(m: int, a: int) -> str:
    return f"{100.0 * m / a:.1f}%" if a else "0.0%"


def team_stat_text(sport: str, pbp: dict[str, Any], totals: dict[str, Stats]) -> str:
    lines: list[str] = []
    word = SCORE_WORD[sport]
    for side, (tid, name) in enumerate(
        ((pbp["home_team_id"], pbp["home_team"]), (pbp["away_team_id"], pbp["away_team"]))
    ):
        t = totals[tid]
        per = [ps[side] for ps in pbp["period_scores"]]
        labels = ", ".join(f"{period_label(sport, i + 1)} {v}" for i, v in enumerate(per))
        lines.append(f"### {name} ({'home' if side == 0 else 'away'})")
        lines.append(f"Final: {sum(per)} {word}")
        lines.append(f"Scoring by {SPECS[sport].period_word}: {labels}")
        if sport == "basketball":
            lines.append(
                f"Field goals: {t.get('fgm', 0)}-{t.get('fga', 0)} ({_pct(t.get('fgm', 0), t.get('fga', 0))})"
            )
            lines.append(
                f"Three-pointers: {t.get('tpm', 0)}-{t.get('tpa', 0)} ({_pct(t.get('tpm', 0), t.get('tpa', 0))})"
            )
            lines.append(
                f"Free throws: {t.get('ftm', 0)}-{t.get('fta', 0)} ({_pct(t.get('ftm', 0), t.get('fta', 0))})"
            )
        lines += [f"{label}: {t.get(k, 0)}" for k, label in TEAM_FIELDS[sport]]
    return "\n".join(lines) + "\n"


def player_stat_text(
    sport: str, pbp: dict[str, Any], box: dict[str, Stats]
) -> tuple[str, list[dict[str, Any]]]:
    """game_stat_player text plus the per-player rows (for season aggregation in the parent)."""
    lines: list[str] = []
    rows: list[dict[str, Any]] = []
    for tid, name in (
        (pbp["home_team_id"], pbp["home_team"]),
        (pbp["away_team_id"], pbp["away_team"]),
    ):
        lines.append(f"### {name}")
        for p in pbp["players"]:
            if p["team_id"] != tid or p["seconds_played"] <= 0:
                continue
            s = box.get(p["player_id"], {})
            lines.append(player_line(sport, p["name"], s, p["seconds_played"], p["position"]))
            rows.append(
                {
                    "pid": p["player_id"],
                    "name": p["name"],
                    "team_id": tid,
                    "position": p["position"],
                    "secs": p["seconds_played"],
                    "stats": s,
                }
            )
    return "\n".join(lines) + "\n", rows


# ------------------------------------------------------------------ recap


def biggest_run(pbp: dict[str, Any]) -> tuple[int, int, int] | None:
    """Largest unanswered scoring run (side, points, period) - report-level narrative."""
    best: tuple[int, int, int] | None = None
    side, run, h, a = -1, 0, 0, 0
    for ev in pbp["events"]:
        dh, da = ev["home_score"] - h, ev["away_score"] - a
        h, a = ev["home_score"], ev["away_score"]
        if dh == da == 0:
            continue
        s = 0 if dh else 1
        pts = dh or da
        run = run + pts if s == side else pts
        side = s
        if best is None or run > best[1]:
            best = (side, run, ev["period"])
    return best


def performer_phrase(sport: str, row: dict[str, Any]) -> str:
    s = row["stats"]
    g = s.get
    if sport == "basketball":
        extra = [
            plural(g("reb", 0), "rebound") if g("reb", 0) >= 5 else "",
            plural(g("ast", 0), "assist") if g("ast", 0) >= 5 else "",
        ]
        parts = [plural(g("pts", 0), "point")] + [e for e in extra if e]
        return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    if sport == "hockey":
        if row["position"] == "G":
            return plural(g("sv", 0), "save")
        return f"{plural(g('g', 0), 'goal')} and {plural(g('a', 0), 'assist')}"
    if row["position"] == "GK":
        return plural(g("sv", 0), "save")
    return f"{plural(g('g', 0), 'goal')} and {plural(g('a', 0), 'assist')}"


def _rank(sport: str, row: dict[str, Any]) -> float:
    s = row["stats"]
    if sport == "basketball":
        return s.get("pts", 0) + 0.5 * s.get("reb", 0) + 0.7 * s.get("ast", 0)
    if sport == "hockey":
        if row["position"] == "G":
            return 0.12 * s.get("sv", 0)
        return 2.0 * s.get("g", 0) + s.get("a", 0) + 0.1 * s.get("sog", 0)
    if row["position"] == "GK":
        return 0.5 * s.get("sv", 0)
    return 2.0 * s.get("g", 0) + s.get("a", 0) + 0.1 * s.get("sot", 0)


def game_summary(
    sport: str, pbp: dict[str, Any], rows: list[dict[str, Any]], missing: dict[str, str]
) -> dict[str, Any]:
    """What the parent needs to write the recap after it knows records and streaks."""
    tops: dict[str, list[dict[str, Any]]] = {}
    for tid in (pbp["home_team_id"], pbp["away_team_id"]):
        mine = sorted((r for r in rows if r["team_id"] == tid), key=lambda r: -_rank(sport, r))
        tops[tid] = [{"name": r["name"], "phrase": performer_phrase(sport, r)} for r in mine[:2]]
    last = pbp["events"][-1] if pbp["events"] else {"home_score": 0, "away_score": 0}
    return {
        "home": pbp["home_team_id"],
        "away": pbp["away_team_id"],
        "home_name": pbp["home_team"],
        "away_name": pbp["away_team"],
        "home_score": last["home_score"],
        "away_score": last["away_score"],
        "period_scores": pbp["period_scores"],
        "run": biggest_run(pbp),
        "tops": tops,
        "missing": missing,
    }


class TeamNamer:
    """Names the two teams of a recap the way a writer does: the full name on first mention,
    then mostly the nickname or short form ('the Celtics', 'Spurs'), sometimes the city."""

    def __init__(self, sport: str, names: dict[str, str], rng: random.Random) -> None:
        self.sport = sport
        self.names = names
        self.rng = rng
        self.last: dict[str, TeamRef] = {}

    def __call__(self, tid: str, capital: bool = False) -> str:
        name = self.names[tid]
        shorts = short_refs(self.sport, name)
        if tid not in self.last or not shorts or self.rng.random() < 0.12:
            ref = full_ref(self.sport, name)
        else:
            ref = shorts[0] if len(shorts) == 1 or self.rng.random() < 0.7 else shorts[1]
            if ref == self.last[tid] and len(shorts) > 1 and self.rng.random() < 0.5:
                ref = shorts[1] if ref == shorts[0] else shorts[0]
        self.last[tid] = ref
        return ref.render(capital)


def recap_rng(seed: int, sport: str, game_id: str) -> random.Random:
    return random.Random(f"playscout-synth-recap:{seed}:{sport}:{game_id}")


def recap_text(
    sport: str,
    sm: dict[str, Any],
    rec: dict[str, tuple[int, ...]],
    streak: dict[str, tuple[str, int]],
    prev_streak: dict[str, tuple[str, int]],
    rng: random.Random,
) -> str:
    """ESPN-style recap. Regexes in questions.py parse these exact phrasings."""
    hs, as_ = sm["home_score"], sm["away_score"]
    hid, aid = sm["home"], sm["away"]
    ref = TeamNamer(sport, {hid: sm["home_name"], aid: sm["away_name"]}, rng)
    paras: list[str] = []
    rec_s = {t: "-".join(str(x) for x in r) for t, r in rec.items()}
    if hs == as_:
        paras.append(
            f"{ref(hid, True)} and {ref(aid)} played to a {hs}-{as_} draw. "
            f"{ref(hid, True)} moved to {rec_s[hid]}, and {ref(aid)} moved to {rec_s[aid]}."
        )
        winner = None
    else:
        wside = 0 if hs > as_ else 1
        w, lo = (hid, aid) if wside == 0 else (aid, hid)
        ws, ls = max(hs, as_), min(hs, as_)
        margin = ws - ls
        big = {"basketball": 20, "hockey": 4, "soccer": 3}[sport]
        close = {"basketball": 3, "hockey": 1, "soccer": 1}[sport]
        verb = "routed" if margin >= big else "held off" if margin <= close else "beat"
        where = "at home" if wside == 0 else "on the road"
        paras.append(
            f"{ref(w, True)} {verb} {ref(lo)} {ws}-{ls} {where}. "
            f"{ref(w, True)} improved to {rec_s[w]}, while {ref(lo)} fell to {rec_s[lo]}."
        )
        winner = w
        sk = streak[w]
        extra: list[str] = []
        if sk[1] >= 2:
            extra.append(f"It was {_a(ordinal_word(sk[1]))} straight win for {ref(w)}.")
        pl = prev_streak.get(w)
        if pl and pl[0] == "L" and pl[1] >= 3:
            extra.append(f"{ref(w, True)} snapped a {pl[1]}-game losing streak.")
        lk = streak[lo]
        if lk[1] >= 3:
            who = ref(lo, True)
            # 'the Raptors have', 'Arsenal have' (club, British usage), 'Toronto has'
            have = "has" if sport != "soccer" and not who.startswith("The ") else "have"
            extra.append(f"{who} {have} lost {lk[1]} straight.")
        if extra:
            paras[-1] += " " + " ".join(extra)
    narr: list[str] = []
    for side, tid in ((0, hid), (1, aid)):
        if sm["missing"].get(tid):
            narr.append(f"{ref(tid, True)} played without {sm['missing'][tid]}.")
        per = [ps[side] for ps in sm["period_scores"]]
        best = max(range(len(per)), key=lambda i: per[i])
        v = per[best]
        pword = _per_words(sport, best + 1)
        if sport == "basketball" and v >= 35:
            narr.append(f"{ref(tid, True)} put up {article(str(v))} {v}-point {pword}.")
        elif sport != "basketball" and v >= (3 if sport == "hockey" else 2):
            narr.append(f"{ref(tid, True)} scored {NUMBER_WORDS[min(v, 10)]} goals in the {pword}.")
    run = sm["run"]
    if run and sport == "basketball" and run[1] >= 10:
        tid = hid if run[0] == 0 else aid
        narr.append(
            f"{ref(tid, True)} used {article(str(run[1]))} {run[1]}-0 run in the "
            f"{_per_words(sport, run[2])}."
        )
    elif run and sport != "basketball" and run[1] >= 3:
        tid = hid if run[0] == 0 else aid
        narr.append(f"{ref(tid, True)} scored {NUMBER_WORDS[min(run[1], 10)]} unanswered goals.")
    if narr:
        paras.append(" ".join(narr))
    perf: list[str] = []
    order = [hid, aid]
    if winner is not None and winner == aid:
        order.reverse()
    for tid in order:
        for i, t in enumerate(sm["tops"][tid]):
            if i == 0:
                perf.append(f"{t['name']} led {ref(tid)} with {t['phrase']}.")
            else:
                perf.append(f"{t['name']} added {t['phrase']}.")
    if perf:
        paras.append(" ".join(perf))
    return "\n\n".join(paras) + "\n"


def _a(word: str) -> str:
    """'a fourth', 'an eighth', 'an 11th'."""
    return f"{article(word)} {word}"


def _per_words(sport: str, period: int) -> str:
    label = period_label(sport, period).split(" ", 1)
    return ordinal_word(period) + " " + label[1] if len(label) == 2 else "overtime"


# ------------------------------------------------------------------ season docs


def season_player_text(
    sport: str, name: str, team: str, games: int, tot: Stats, secs: float, position: str
) -> str:
    g = tot.get
    n = max(1, games)
    goalie = position in ("G", "GK")
    if sport == "basketball":
        per = [f"{g(k, 0) / n:.1f} {label}" for k, label in PLAYER_FIELDS[sport]]
        per += [
            f"{_pct(g('fgm', 0), g('fga', 0))} FG",
            f"{_pct(g('tpm', 0), g('tpa', 0))} 3PT",
            f"{_pct(g('ftm', 0), g('fta', 0))} FT",
            f"{secs / 60 / n:.1f} minutes",
        ]
        totals = [f"{g(k, 0)} {label}" for k, label in PLAYER_FIELDS[sport]]
        totals += [
            f"{g('fgm', 0)}-{g('fga', 0)} FG",
            f"{g('tpm', 0)}-{g('tpa', 0)} 3PT",
            f"{g('ftm', 0)}-{g('fta', 0)} FT",
        ]
    else:
        fields = GOALIE_FIELDS[sport] if goalie else PLAYER_FIELDS[sport]
        per = [f"{g(k, 0) / n:.1f} {label}" for k, label in fields]
        per.append(f"{secs / 60 / n:.1f} minutes")
        totals = [f"{g(k, 0)} {label}" for k, label in fields]
        if sport == "hockey" and not goalie:
            totals.append(f"{_pm(g('pm', 0))} +/-")
    return (
        f"{name} ({team}, {position})\n"
        f"{name}: " + ", ".join(per) + f" per game in {games} games\n"
        f"Season totals: " + ", ".join(totals) + "\n"
    )


def season_team_text(
    sport: str,
    name: str,
    season_code: str,
    rec: tuple[int, ...],
    home_rec: tuple[int, ...],
    away_rec: tuple[int, ...],
    scored: int,
    allowed: int,
    games: int,
) -> str:
    word = SCORE_WORD[sport]
    n = max(1, games)
    fmt = "-".join
    return (
        f"{name} {season_code} season\n"
        f"Record: {fmt(map(str, rec))} in {games} games ({fmt(map(str, home_rec))} at home, "
        f"{fmt(map(str, away_rec))} on the road)\n"
        f"{word.capitalize()} scored: {scored} ({scored / n:.1f} per game)\n"
        f"{word.capitalize()} allowed: {allowed} ({allowed / n:.1f} per game)\n"
    )
