"""Play-by-play simulation of one game on a full-video timeline.

The simulator writes two things: events (with clock, video time, attributes, running score and
caption) and *spans* of the full game video (live play with a running clock, covered set pieces
with a stopped clock, and uncovered stoppages/breaks). Clip windows tile the covered spans, so
every caption lands in the window whose video span holds its event.
"""

from __future__ import annotations

import random
from typing import Any

from . import vocab as V
from .captions import caption
from .roster import League, Player
from .schedule import GameSpec
from .vocab import SPECS

Event = dict[str, Any]
# (video_start, video_end, period, clock_elapsed_at_start, clock_running, covered)
Span = tuple[float, float, int, float, bool, bool]


def _pref(p: Player) -> dict[str, Any]:
    return {"player_id": p.pid, "name": p.name, "number": p.number}


class Sim:
    """State shared by the three sports: video cursor, spans, events, score, on-court sets."""

    def __init__(self, sport: str, gs: GameSpec, league: League, rng: random.Random) -> None:
        self.sport = sport
        self.spec = SPECS[sport]
        self.gs = gs
        self.rng = rng
        self.tids = (gs.home, gs.away)
        self.tnames = (league.teams[gs.home], league.teams[gs.away])
        rosters = league.rosters[gs.season]
        self.dressed = (self._dress(rosters[gs.home]), self._dress(rosters[gs.away]))
        self.events: list[Event] = []
        self.spans: list[Span] = []
        self.lineups: list[tuple[float, int, list[str]]] = []
        self.secs: dict[str, float] = {}
        self.on: list[list[Player]] = [[], []]
        self.score = [0, 0]
        self.period_scores: list[list[int]] = []
        self.v = 0.0
        self.period = 0

    # -------------------------------------------------------------- helpers
    def _dress(self, roster: list[Player]) -> list[Player]:
        """Players available tonight: a few miss games (injury / rest / healthy scratch)."""
        n = {"basketball": 13, "hockey": 20, "soccer": 20}[self.sport]
        avail = [p for p in roster if self.rng.random() > 0.08]
        avail.sort(key=lambda p: -p.rating * (0.6 + 0.8 * self.rng.random()))
        return avail[:n]

    def pick(self, side: int, exclude: Player | None = None, pos: str | None = None) -> Player:
        cands = [
            p for p in self.on[side] if p is not exclude and (pos is None or p.position == pos)
        ]
        if not cands:
            cands = [p for p in self.on[side] if p is not exclude] or self.on[side]
        weights = [p.rating for p in cands]
        return self.rng.choices(cands, weights)[0]

    def set_lineup(self, side: int, players: list[Player]) -> None:
        self.on[side] = players
        self.lineups.append((round(self.v, 3), side, [p.pid for p in players]))

    def clock_at(self, c: float) -> tuple[str, float]:
        """Clock string and seconds: remaining for countdown sports, elapsed for soccer."""
        if self.spec.countdown:
            plen = (
                self.spec.period_seconds
                if self.period <= self.spec.periods
                else self.spec.ot_seconds
            )
            rem = max(0.0, plen - c)
            s = int(rem + 0.999)
            return f"{s // 60:02d}:{s % 60:02d}", float(s)
        el = (self.period - 1) * self.spec.period_seconds + c
        s = int(el)
        return f"{s // 60:02d}:{s % 60:02d}", float(s)

    def live(self, c0: float, dur: float, covered: bool = True) -> None:
        self.spans.append(
            (round(self.v, 3), round(self.v + dur, 3), self.period, c0, True, covered)
        )
        self.v += dur
        for side in (0, 1):
            for p in self.on[side]:
                self.secs[p.pid] = self.secs.get(p.pid, 0.0) + dur

    def dead(self, c: float, dur: float, covered: bool = False) -> None:
        self.spans.append(
            (round(self.v, 3), round(self.v + dur, 3), self.period, c, False, covered)
        )
        self.v += dur

    def emit(
        self,
        c: float,
        side: int,
        p: Player | None,
        etype: str,
        attrs: dict[str, Any],
        points: int = 0,
    ) -> Event:
        if points:
            self.score[side] += points
            self.period_scores[-1][side] += points
        clock, secs = self.clock_at(c)
        ev: Event = {
            "event_id": len(self.events) + 1,
            "period": self.period,
            "clock": clock,
            "clock_seconds": secs,
            "video_time": round(self.v, 3),
            "team_id": self.tids[side],
            "team": self.tnames[side],
            "player_id": p.pid if p else None,
            "player": p.name if p else None,
            "number": p.number if p else None,
            "type": etype,
            "attributes": attrs,
            "home_score": self.score[0],
            "away_score": self.score[1],
        }
        ev["caption"] = caption(self.sport, ev, self.tnames[0], self.tnames[1])
        self.events.append(ev)
        return ev

    def start_period(self, brk: float) -> None:
        self.period += 1
        self.period_scores.append([0, 0])
        if brk > 0:
            self.dead(0.0, brk)

    def run(self) -> None:
        raise NotImplementedError

    def result(self) -> dict[str, Any]:
        players = []
        for side in (0, 1):
            for p in self.dressed[side]:
                players.append(
                    {
                        "player_id": p.pid,
                        "name": p.name,
                        "number": p.number,
                        "position": p.position,
                        "team_id": self.tids[side],
                        "seconds_played": round(self.secs.get(p.pid, 0.0), 1),
                    }
                )
        return {
            "events": self.events,
            "spans": self.spans,
            "lineups": self.lineups,
            "players": players,
            "period_scores": self.period_scores,
            "video_duration": round(self.v, 3),
        }


# ------------------------------------------------------------------ basketball


class BasketballSim(Sim):
    def new_lineup(self, side: int) -> None:
        pool = list(self.dressed[side])
        out: list[Player] = []
        while len(out) < 5 and pool:
            p = self.rng.choices(pool, [q.rating**2 for q in pool])[0]
            pool.remove(p)
            out.append(p)
        self.set_lineup(side, out)

    def run(self) -> None:
        rng = self.rng
        off = rng.randrange(2)
        while self.period < 4 or self.score[0] == self.score[1]:
            brk = 0.0 if self.period == 0 else (900.0 if self.period == 2 else 130.0)
            self.start_period(brk)
            plen = 720.0 if self.period <= 4 else 300.0
            for side in (0, 1):
                self.new_lineup(side)
            c = 0.0
            while True:
                dur = rng.uniform(5.0, 21.0)
                if c + dur >= plen:
                    self.live(c, plen - c)
                    break
                if dur > 9.0 and rng.random() < 0.7:  # ball movement before the shot
                    part = dur * rng.uniform(0.3, 0.6)
                    self.live(c, part)
                    p = self.pick(off)
                    self.emit(
                        c + part, off, p, "pass", {"receiver": _pref(self.pick(off, exclude=p))}
                    )
                    self.live(c + part, dur - part)
                else:
                    self.live(c, dur)
                c += dur
                off, c = self.possession(c, off)
                if c >= plen:
                    break

    def shot_attrs(self, three: bool, made: bool) -> dict[str, Any]:
        rng = self.rng
        if three:
            zone = rng.choices(V.BB_ZONES_3, (15, 15, 22, 22, 26))[0]
            shot = rng.choices(V.BB_SHOT_TYPES_3, (55, 25, 12, 8))[0]
            play = rng.choices(V.BB_PLAY_TYPES, (20, 12, 2, 12, 35, 8, 1, 10))[0]
        else:
            shot = rng.choices(V.BB_SHOT_TYPES_2, (30, 10, 10, 6, 4, 3, 20, 7, 10))[0]
            zone = (
                "restricted area"
                if shot in V.BB_RIM
                else "paint"
                if shot in V.BB_PAINT
                else rng.choice(("mid-range", "mid-range", "paint"))
            )
            play = rng.choices(V.BB_PLAY_TYPES, (22, 14, 12, 14, 6, 8, 14, 10))[0]
            if shot in ("tip-in",):
                play = "cut"
        attrs: dict[str, Any] = {"shot_type": shot, "zone": zone, "play_type": play}
        if shot == "step-back jumper":
            attrs["dribble_move"] = "step back"
        elif (
            play in ("isolation", "pick-and-roll", "transition", "post-up") and rng.random() < 0.55
        ):
            attrs["dribble_move"] = rng.choices(V.BB_MOVES, (30, 12, 18, 8, 10, 12, 10))[0]
        return attrs

    def possession(self, c: float, off: int) -> tuple[int, float]:
        """One possession ending at clock c; returns the next offense and the clock."""
        rng = self.rng
        dfn = 1 - off
        r = rng.random()
        if r < 0.13:  # turnover
            p = self.pick(off)
            if rng.random() < 0.5:
                self.emit(
                    c, off, p, "turnover", {"kind": "bad pass", "stolen_by": _pref(self.pick(dfn))}
                )
            else:
                kind = rng.choice(("bad pass", "traveling", "offensive foul", "out of bounds"))
                self.emit(c, off, p, "turnover", {"kind": kind})
                self.stoppage(c)
            return dfn, c
        if r < 0.19:  # non-shooting foul, same offense keeps the ball
            p = self.pick(dfn)
            self.emit(c, dfn, p, "foul", {"kind": "personal", "fouled": _pref(self.pick(off))})
            self.stoppage(c)
            return off, c
        for _attempt in range(3):
            shooter = self.pick(off)
            three = rng.random() < 0.39
            fouled = rng.random() < 0.09
            made = rng.random() < (0.36 if three else 0.53) * (0.7 if fouled else 1.0)
            attrs = self.shot_attrs(three, made)
            if made and rng.random() < 0.62:
                attrs["assist"] = _pref(self.pick(off, exclude=shooter))
            if not made and not three and rng.random() < 0.1:
                attrs["blocked_by"] = _pref(self.pick(dfn))
            pts = (3 if three else 2) if made else 0
            self.emit(
                c,
                off,
                shooter,
                f"{'3PT' if three else '2PT'} {'made' if made else 'missed'}",
                attrs,
                pts,
            )
            if fouled:
                fouler = self.pick(dfn)
                self.emit(c, dfn, fouler, "foul", {"kind": "shooting", "fouled": _pref(shooter)})
                n = 1 if made else (3 if three else 2)
                last = self.free_throws(c, off, shooter, n)
                if last:
                    return dfn, c
            elif made:
                return dfn, c
            # missed: rebound
            oreb = rng.random() < 0.24
            side = off if oreb else dfn
            self.live(c, 1.5)
            c += 1.5
            self.emit(c, side, self.pick(side), "rebound", {"offensive": oreb})
            if not oreb:
                return dfn, c
            dur = rng.uniform(2.0, 7.0)
            self.live(c, dur)
            c += dur
        return dfn, c

    def free_throws(self, c: float, side: int, shooter: Player, n: int) -> bool:
        """Covered, clock-stopped free-throw sequence; True when the last one is made."""
        made = False
        self.dead(c, 6.0)
        for i in range(1, n + 1):
            self.dead(c, 4.0, covered=True)
            made = self.rng.random() < 0.78
            self.emit(
                c,
                side,
                shooter,
                f"free throw {'made' if made else 'missed'}",
                {"ft_index": i, "ft_total": n},
                1 if made else 0,
            )
            self.dead(c, 4.0 if i < n else 2.0, covered=True)
        if not made:
            self.live(c, 1.0)
            oreb = self.rng.random() < 0.15
            rs = side if oreb else 1 - side
            self.emit(c + 1.0, rs, self.pick(rs), "rebound", {"offensive": oreb})
        return made

    def stoppage(self, c: float) -> None:
        rng = self.rng
        if rng.random() < 0.12:
            side = rng.randrange(2)
            self.emit(c, side, None, "timeout", {})
            self.dead(c, rng.uniform(80.0, 120.0))
            for s in (0, 1):
                self.new_lineup(s)
            return
        self.dead(c, rng.uniform(8.0, 25.0))
        if rng.random() < 0.3:
            self.new_lineup(rng.randrange(2))


# ------------------------------------------------------------------ hockey


class HockeySim(Sim):
    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.goalie = [self._starter_goalie(0), self._starter_goalie(1)]
        self.pp_until = [-1.0, -1.0]  # absolute clock (period*10000 + c) of power play end

    def _starter_goalie(self, side: int) -> Player:
        gs = [p for p in self.dressed[side] if p.position == "G"]
        if not gs:
            gs = self.dressed[side][-1:]
        return max(gs, key=lambda p: p.rating)

    def new_line(self, side: int) -> None:
        skaters = [
            p for p in self.dressed[side] if p is not self.goalie[side] and p.position != "G"
        ]
        fw = [p for p in skaters if p.position != "D"]
        d = [p for p in skaters if p.position == "D"]
        line: list[Player] = [self.goalie[side]]
        for pool, k in ((fw, 3), (d, 2)):
            pool = list(pool)
            for _ in range(min(k, len(pool))):
                p = self.rng.choices(pool, [q.rating for q in pool])[0]
                pool.remove(p)
                line.append(p)
        self.set_lineup(side, line)

    def skater(self, side: int, exclude: Player | None = None) -> Player:
        cands = [p for p in self.on[side] if p is not exclude and p is not self.goalie[side]]
        return self.rng.choices(cands, [p.rating for p in cands])[0]

    def run(self) -> None:
        rng = self.rng
        while self.period < 3 or (self.score[0] == self.score[1] and self.period < 4):
            brk = 0.0 if self.period == 0 else 1020.0
            self.start_period(brk)
            ot = self.period > 3
            plen = 1200.0 if not ot else 300.0
            c = 0.0
            while c < plen:
                for side in (0, 1):
                    self.new_line(side)
                self.faceoff(c)
                whistle_at = c + rng.uniform(20.0, 70.0)
                stop = False
                while not stop:
                    dur = rng.uniform(3.0, 11.0)
                    if c + dur >= min(plen, whistle_at):
                        dur = max(0.5, min(plen, whistle_at) - c)
                        self.live(c, dur)
                        c += dur
                        if c >= plen:
                            break
                        stop = True
                        self.whistle(c)
                        break
                    self.live(c, dur)
                    c += dur
                    stop = self.play(c, ot)
                    if ot and self.score[0] != self.score[1]:
                        return
                if c < plen:
                    self.dead(c, rng.uniform(20.0, 40.0))
            if ot and self.score[0] == self.score[1]:
                # regular-season ties are not simulated: the overtime ends on a late goal
                side = rng.randrange(2)
                attrs = self.goal_attrs(side, ot)
                attrs["on_ice"] = {self.tids[s]: [p.pid for p in self.on[s]] for s in (0, 1)}
                self.emit(plen - 1.0, side, self.skater(side), "goal", attrs, 1)
                return

    def faceoff(self, c: float) -> None:
        a, b = self.on[0][1:2] or self.on[0], self.on[1][1:2] or self.on[1]
        win = self.rng.randrange(2)
        w, lz = (a[0], b[0]) if win == 0 else (b[0], a[0])
        self.emit(c, win, w, "faceoff", {"opponent": _pref(lz)})

    def whistle(self, c: float) -> None:
        rng = self.rng
        if rng.random() < 0.12:
            side = rng.randrange(2)
            p = self.skater(side)
            pen = rng.choice(V.HK_PENALTIES)
            minutes = 4 if pen == "high-sticking" and rng.random() < 0.3 else 2
            self.emit(c, side, p, "penalty", {"penalty": pen, "minutes": minutes})
            self.pp_until[1 - side] = self.period * 10000 + c + minutes * 60

    def goal_attrs(self, side: int, ot: bool) -> dict[str, Any]:
        rng = self.rng
        zone = rng.choices(V.HK_ZONES, (30, 16, 12, 12, 8, 16, 6))[0]
        shot = rng.choices(V.HK_SHOT_TYPES, (40, 8, 18, 12, 12, 7, 3))[0]
        if zone == "behind the net":
            shot = "wraparound"
        if zone == "point":
            shot = rng.choice(("slap shot", "wrist shot"))
        pp = self.pp_until[side] > self.period * 10000
        play = "power play" if pp else rng.choices(V.HK_PLAY_TYPES, (30, 22, 0, 20, 8, 12))[0]
        attrs: dict[str, Any] = {"shot_type": shot, "zone": zone, "play_type": play}
        if play in ("rush", "breakaway") and rng.random() < 0.45:
            attrs["deke"] = rng.choices(V.HK_MOVES, (40, 40, 12, 8))[0]
        return attrs

    def play(self, c: float, ot: bool) -> bool:
        """One in-play event at clock c; True when it draws a whistle."""
        rng = self.rng
        side = rng.randrange(2)
        opp = 1 - side
        r = rng.random()
        if r < 0.33:
            p = self.skater(side)
            self.emit(
                c,
                side,
                p,
                "pass",
                {
                    "receiver": _pref(self.skater(side, p)),
                    "area": rng.choice(("neutral zone", "offensive zone", "defensive zone")),
                },
            )
            return False
        if r < 0.45:
            self.emit(c, side, self.skater(side), "hit", {"target": _pref(self.skater(opp))})
            return False
        if r < 0.52:
            self.emit(c, side, self.skater(side), "takeaway", {"opponent": _pref(self.skater(opp))})
            return False
        if r < 0.57:
            self.emit(
                c,
                side,
                self.skater(side),
                "giveaway",
                {"area": rng.choice(("neutral zone", "defensive zone"))},
            )
            return False
        if r < 0.75:
            self.emit(
                c, side, self.skater(side), "puck battle", {"opponent": _pref(self.skater(opp))}
            )
            return False
        shooter = self.skater(side)
        attrs = self.goal_attrs(side, ot)
        kind = rng.random()
        if kind < 0.22:
            attrs["blocker"] = _pref(self.skater(opp))
            attrs.pop("deke", None)
            self.emit(c, side, shooter, "blocked shot", attrs)
            return False
        if kind < 0.44:
            attrs.pop("deke", None)
            self.emit(c, side, shooter, "missed shot", attrs)
            return False
        if rng.random() < 0.088:
            helpers = [p for p in self.on[side] if p is not shooter and p is not self.goalie[side]]
            rng.shuffle(helpers)
            k = rng.choices((0, 1, 2), (10, 30, 60))[0]
            attrs["assists"] = [_pref(p) for p in helpers[:k]]
            attrs["on_ice"] = {self.tids[s]: [p.pid for p in self.on[s]] for s in (0, 1)}
            self.emit(c, side, shooter, "goal", attrs, 1)
            if self.pp_until[side] > self.period * 10000:
                self.pp_until[side] = -1.0
            self.dead(c, rng.uniform(30.0, 50.0))
            return True
        attrs["goalie"] = _pref(self.goalie[opp])
        self.emit(c, side, shooter, "shot on goal", attrs)
        return rng.random() < 0.35


# ------------------------------------------------------------------ soccer


class SoccerSim(Sim):
    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.bench: list[list[Player]] = [[], []]
        self.subs = [0, 0]
        self.sent_off: set[str] = set()
        self.yellows: set[str] = set()

    def xi(self, side: int) -> None:
        d = self.dressed[side]
        gk = [p for p in d if p.position == "GK"][:1] or d[:1]
        field = [p for p in d if p is not gk[0]]
        shape = {"DF": 4, "MF": 4, "FW": 2}
        out = list(gk)
        for pos, k in shape.items():
            out += [p for p in field if p.position == pos][:k]
        for p in field:
            if len(out) >= 11:
                break
            if p not in out:
                out.append(p)
        self.bench[side] = [p for p in d if p not in out]
        self.set_lineup(side, out)

    def outfield(self, side: int, exclude: Player | None = None, fw: bool = False) -> Player:
        cands = [p for p in self.on[side] if p is not exclude and p.position != "GK"]
        if fw:
            w = [
                p.rating * (4.0 if p.position == "FW" else 2.0 if p.position == "MF" else 0.6)
                for p in cands
            ]
        else:
            w = [p.rating for p in cands]
        return self.rng.choices(cands, w)[0]

    def keeper(self, side: int) -> Player:
        gks = [p for p in self.on[side] if p.position == "GK"]
        return gks[0] if gks else self.on[side][0]

    def run(self) -> None:
        rng = self.rng
        for side in (0, 1):
            self.xi(side)
        poss = rng.randrange(2)
        for half in (1, 2):
            self.start_period(0.0 if half == 1 else 900.0)
            plen = 2700.0 + rng.uniform(60.0, 200.0) * half
            c = 0.0
            while True:
                dur = rng.uniform(2.5, 8.5)
                if c + dur >= plen:
                    self.live(c, plen - c)
                    break
                self.live(c, dur)
                c += dur
                poss = self.play(c, poss)
                # second-half substitutions from the 65th minute (the clock restarts each half)
                if half == 2 and c > 1200 and rng.random() < 0.025:
                    self.substitute(c)

    def substitute(self, c: float) -> None:
        side = self.rng.randrange(2)
        outfield = [p for p in self.bench[side] if p.position != "GK"]
        if self.subs[side] >= 5 or not outfield:
            return
        off = self.outfield(side)
        on = outfield[0]
        self.bench[side].remove(on)
        self.subs[side] += 1
        self.emit(c, side, on, "substitution", {"replaced": _pref(off)})
        self.set_lineup(side, [on if p is off else p for p in self.on[side]])

    def shot_attrs(self, poss: int) -> dict[str, Any]:
        rng = self.rng
        pos = rng.choices(V.SC_POSITIONS, (14, 3, 22, 14, 14, 33))[0]
        body = (
            "header"
            if pos in ("six-yard box", "penalty spot") and rng.random() < 0.3
            else rng.choices(V.SC_BODY_PARTS, (55, 35, 10))[0]
        )
        if pos == "outside the box":
            shot = rng.choice(("long-range strike", "curler", "volley", "half-volley"))
            body = "right foot" if body == "header" else body
        elif pos == "six-yard box":
            shot = rng.choice(("tap-in", "placed finish", "volley", "half-volley"))
        else:
            shot = rng.choices(
                ("placed finish", "curler", "volley", "half-volley", "chip"), (40, 15, 15, 15, 6)
            )[0]
        if body == "header":
            shot = "placed finish" if shot in ("curler", "chip", "long-range strike") else shot
        play = rng.choices(V.SC_PLAY_TYPES[:7], (16, 22, 10, 8, 8, 14, 12))[0]
        attrs: dict[str, Any] = {
            "body_part": body,
            "shot_type": shot,
            "position": pos,
            "play_type": play,
        }
        if (
            play in ("counter-attack", "one-two", "through ball")
            and body != "header"
            and rng.random() < 0.35
        ):
            attrs["skill_move"] = rng.choices(V.SC_MOVES, (25, 15, 12, 20, 28))[0]
        return attrs

    def play(self, c: float, poss: int) -> int:
        rng = self.rng
        opp = 1 - poss
        r = rng.random()
        if r < 0.5:
            p = self.outfield(poss)
            recv = self.outfield(poss, p)
            a: dict[str, Any] = {"receiver": _pref(recv)}
            if rng.random() < 0.12:
                a["pass_type"] = rng.choice(
                    ("through ball", "cross", "long ball", "one-two", "cutback")
                )
            self.emit(c, poss, p, "pass", a)
            return poss
        if r < 0.6:
            w = rng.randrange(2)
            self.emit(c, w, self.outfield(w), "duel", {"opponent": _pref(self.outfield(1 - w))})
            return w
        if r < 0.65:
            a = {"opponent": _pref(self.outfield(opp))}
            if rng.random() < 0.4:
                a["skill_move"] = rng.choices(V.SC_MOVES, (25, 15, 12, 20, 28))[0]
            self.emit(c, poss, self.outfield(poss), "dribble", a)
            return poss
        if r < 0.73:
            kind = "tackle" if rng.random() < 0.5 else "interception"
            self.emit(c, opp, self.outfield(opp), kind, {"opponent": _pref(self.outfield(poss))})
            return opp
        if r < 0.78:
            self.emit(c, opp, self.outfield(opp), "clearance", {})
            return poss if rng.random() < 0.4 else opp
        if r < 0.805:
            fouler = self.outfield(opp)
            self.emit(c, opp, fouler, "foul", {"fouled": _pref(self.outfield(poss))})
            if rng.random() < 0.16:
                card = (
                    "red card"
                    if fouler.pid in self.yellows or rng.random() < 0.04
                    else "yellow card"
                )
                self.yellows.add(fouler.pid)
                self.emit(c, opp, fouler, card, {})
                if card == "red card":
                    self.set_lineup(opp, [p for p in self.on[opp] if p is not fouler])
            if rng.random() < 0.03:
                self.shot(c, poss, penalty=True)
                return opp
            return poss
        if r < 0.812:
            self.emit(c, poss, self.outfield(poss, fw=True), "offside", {})
            return opp
        if r < 0.83:
            return self.shot(c, poss)
        return poss

    def shot(self, c: float, poss: int, penalty: bool = False) -> int:
        rng = self.rng
        opp = 1 - poss
        shooter = self.outfield(poss, fw=True)
        attrs = self.shot_attrs(poss)
        if penalty:
            attrs.update(
                body_part="right foot",
                shot_type="penalty kick",
                position="penalty spot",
                play_type="free kick",
            )
            attrs.pop("skill_move", None)
        r = rng.random()
        goal_p = 0.76 if penalty else 0.15
        if r < goal_p:
            if not penalty and rng.random() < 0.72:
                attrs["assist"] = _pref(self.outfield(poss, shooter))
            self.emit(c, poss, shooter, "goal", attrs, 1)
            return opp
        if r < goal_p + 0.25:
            attrs["goalkeeper"] = _pref(self.keeper(opp))
            self.emit(c, poss, shooter, "shot saved", attrs)
            if rng.random() < 0.35:
                self.emit(c, poss, self.outfield(poss), "corner", {})
            return opp
        if r < goal_p + 0.45:
            attrs["blocker"] = _pref(self.outfield(opp))
            self.emit(c, poss, shooter, "shot blocked", attrs)
            return poss
        self.emit(c, poss, shooter, "shot missed", attrs)
        return opp


SIMS: dict[str, type[Sim]] = {"basketball": BasketballSim, "hockey": HockeySim, "soccer": SoccerSim}


def game_rng(seed: int, sport: str, index: int) -> random.Random:
    """Per-game RNG from a string seed (sha512-based, never the salted hash())."""
    return random.Random(f"playscout-synth:{seed}:{sport}:game:{index}")


def simulate(sport: str, gs: GameSpec, league: League, seed: int) -> dict[str, Any]:
    sim = SIMS[sport](sport, gs, league, game_rng(seed, sport, gs.index))
    sim.run()
    return sim.result()
