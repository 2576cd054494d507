"""Box scores, team stats, recaps and season documents, all computed from the events.

Documents carry only game/season-level facts (scores, records, streaks, stat lines); clip-level
attributes (shot types, zones, play types, moves) are never written here, so they stay
video-only answers. What a sport counts and how it words its documents is its spec's StatSheet
and Recap (playscout/synthetic/spec.py).
"""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Any

from .spec import Feat, SportSpec, Stats
from .sports import SPECS
from .vocab import NUMBER_WORDS, TeamRef, article, ordinal_word, plural


def _ref_id(a: dict[str, Any], key: str) -> str | None:
    v = a.get(key)
    return v["player_id"] if v else None


def box_score(sport: str, pbp: dict[str, Any]) -> dict[str, Stats]:
    """Per-player counting stats from the events (the single source of truth)."""
    tally = SPECS[sport].stats.tally
    st: dict[str, Stats] = defaultdict(lambda: defaultdict(int))
    for ev in pbp["events"]:
        pid = ev["player_id"]
        if pid is None:
            continue
        tally(ev, st[pid], st)
    return {k: dict(v) for k, v in st.items()}


def _pm(v: int) -> str:
    return f"+{v}" if v > 0 else str(v)


def _goalie(spec: SportSpec, position: str) -> bool:
    return position == spec.stats.goalie_position


def player_line(sport: str, name: str, s: Stats, secs: float, position: str) -> str:
    spec = SPECS[sport]
    sheet = spec.stats
    g = s.get
    goalie = _goalie(spec, position)
    fields = sheet.goalie_fields if goalie else sheet.player_fields
    parts = [f"{g(k, 0)} {label}" for k, label in fields]
    parts += [f"{g(x.made, 0)}-{g(x.attempts, 0)} {x.short}" for x in sheet.splits]
    if sheet.plus_minus and not goalie:
        parts.append(f"{_pm(g('pm', 0))} +/-")
    if sheet.time_on_ice:
        parts.append(f"{int(secs) // 60}:{int(secs) % 60:02d} TOI")
    else:
        parts.append(f"{round(secs / 60)} minutes")
    return f"{name}: " + ", ".join(parts)


def team_totals(sport: str, pbp: dict[str, Any], box: dict[str, Stats]) -> dict[str, Stats]:
    out: dict[str, Stats] = {
        pbp["home_team_id"]: defaultdict(int),
        pbp["away_team_id"]: defaultdict(int),
    }
    sheet = SPECS[sport].stats
    for p in pbp["players"]:
        for k, v in box.get(p["player_id"], {}).items():
            if k not in sheet.player_only:
                out[p["team_id"]][k] += v
    for ev in pbp["events"]:
        if ev["type"] in sheet.team_events:
            out[ev["team_id"]][ev["type"] + "s"] += 1
    return {k: dict(v) for k, v in out.items()}


def _pct(m: int, a: int) -> str:
    return f"{100.0 * m / a:.1f}%" if a else "0.0%"


def team_stat_text(sport: str, pbp: dict[str, Any], totals: dict[str, Stats]) -> str:
    spec = SPECS[sport]
    lines: list[str] = []
    word = spec.stats.score_word
    for side, (tid, name) in enumerate(
        ((pbp["home_team_id"], pbp["home_team"]), (pbp["away_team_id"], pbp["away_team"]))
    ):
        t = totals[tid]
        per = [ps[side] for ps in pbp["period_scores"]]
        labels = ", ".join(f"{spec.period_label(i + 1)} {v}" for i, v in enumerate(per))
        lines.append(f"### {name} ({'home' if side == 0 else 'away'})")
        lines.append(f"Final: {sum(per)} {word}")
        lines.append(f"Scoring by {spec.period_word}: {labels}")
        for x in spec.stats.splits:
            m, a = t.get(x.made, 0), t.get(x.attempts, 0)
            lines.append(f"{x.long}: {m}-{a} ({_pct(m, a)})")
        lines += [f"{label}: {t.get(k, 0)}" for k, label in spec.stats.team_fields]
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
    """'31 points, 8 rebounds and 5 assists', '1 goal and 2 assists', '34 saves'."""
    spec = SPECS[sport]
    g = row["stats"].get
    goalie = _goalie(spec, row["position"])
    shown = spec.stats.goalie_headline if goalie else spec.stats.headline
    parts = [
        plural(g(k, 0), noun) for i, (k, noun, at) in enumerate(shown) if not i or g(k, 0) >= at
    ]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _rank(sport: str, row: dict[str, Any]) -> float:
    spec = SPECS[sport]
    s = row["stats"]
    goalie = _goalie(spec, row["position"])
    weights = spec.stats.goalie_rank if goalie else spec.stats.rank
    return sum(w * s.get(k, 0) for k, w in weights)


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

    def __init__(self, spec: SportSpec, names: dict[str, str], rng: random.Random) -> None:
        self.spec = spec
        self.names = names
        self.rng = rng
        self.last: dict[str, TeamRef] = {}

    def __call__(self, tid: str, capital: bool = False) -> str:
        name = self.names[tid]
        shorts = self.spec.short_refs(name)
        if tid not in self.last or not shorts or self.rng.random() < 0.12:
            ref = self.spec.full_ref(name)
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
    spec = SPECS[sport]
    hs, as_ = sm["home_score"], sm["away_score"]
    hid, aid = sm["home"], sm["away"]
    ref = TeamNamer(spec, {hid: sm["home_name"], aid: sm["away_name"]}, rng)
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
        big, close = spec.recap.rout_margin, spec.recap.close_margin
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
            have = "have" if spec.naming.plural_verb or who.startswith("The ") else "has"
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
        if v >= spec.recap.big_period.at:
            narr.append(_feat(spec.recap.big_period, ref(tid, True), v, _per_words(spec, best + 1)))
    run = sm["run"]
    if run and run[1] >= spec.recap.run.at:
        tid = hid if run[0] == 0 else aid
        narr.append(_feat(spec.recap.run, ref(tid, True), run[1], _per_words(spec, run[2])))
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


def _feat(feat: Feat, team: str, v: int, period: str) -> str:
    return feat.sentence.format(
        team=team, v=v, a=article(str(v)), words=NUMBER_WORDS[min(v, 10)], period=period
    )


def _per_words(spec: SportSpec, period: int) -> str:
    """'third quarter', 'second half', 'overtime'."""
    label = spec.period_label(period).split(" ", 1)
    return ordinal_word(period) + " " + label[1] if len(label) == 2 else "overtime"


# ------------------------------------------------------------------ season docs


def season_player_text(
    sport: str, name: str, team: str, games: int, tot: Stats, secs: float, position: str
) -> str:
    spec = SPECS[sport]
    sheet = spec.stats
    g = tot.get
    n = max(1, games)
    goalie = _goalie(spec, position)
    fields = sheet.goalie_fields if goalie else sheet.player_fields
    per = [f"{g(k, 0) / n:.1f} {label}" for k, label in fields]
    per += [f"{_pct(g(x.made, 0), g(x.attempts, 0))} {x.short}" for x in sheet.splits]
    per.append(f"{secs / 60 / n:.1f} minutes")
    totals = [f"{g(k, 0)} {label}" for k, label in fields]
    totals += [f"{g(x.made, 0)}-{g(x.attempts, 0)} {x.short}" for x in sheet.splits]
    if sheet.plus_minus and not goalie:
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
    word = SPECS[sport].stats.score_word
    n = max(1, games)
    fmt = "-".join
    return (
        f"{name} {season_code} season\n"
        f"Record: {fmt(map(str, rec))} in {games} games ({fmt(map(str, home_rec))} at home, "
        f"{fmt(map(str, away_rec))} on the road)\n"
        f"{word.capitalize()} scored: {scored} ({scored / n:.1f} per game)\n"
        f"{word.capitalize()} allowed: {allowed} ({allowed / n:.1f} per game)\n"
    )
