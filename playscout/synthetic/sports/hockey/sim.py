"""Hockey game simulator: shifts between faceoffs, in-play events (passes, hits, takeaways,
puck battles, shots), penalties with power plays, three 20-minute periods and a sudden-death
overtime that always ends on a goal (period count and lengths from the sport's Board).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...game_sim import Sim, pref
from . import words as W

if TYPE_CHECKING:
    from ...roster import Player


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
        n = self.spec.board.regulation_periods
        while self.period < n or (self.score[0] == self.score[1] and self.period <= n):
            brk = 0.0 if self.period == 0 else 1020.0
            self.start_period(brk)
            ot = self.period > n
            plen = float(self.spec.board.period_length(self.period))
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
        self.emit(c, win, w, "faceoff", {"opponent": pref(lz)})

    def whistle(self, c: float) -> None:
        rng = self.rng
        if rng.random() < 0.12:
            side = rng.randrange(2)
            p = self.skater(side)
            pen = rng.choice(W.PENALTIES)
            minutes = 4 if pen == "high-sticking" and rng.random() < 0.3 else 2
            self.emit(c, side, p, "penalty", {"penalty": pen, "minutes": minutes})
            self.pp_until[1 - side] = self.period * 10000 + c + minutes * 60

    def goal_attrs(self, side: int, ot: bool) -> dict[str, Any]:
        rng = self.rng
        zone = rng.choices(W.ZONES, (30, 16, 12, 12, 8, 16, 6))[0]
        shot = rng.choices(W.SHOT_TYPES, (40, 8, 18, 12, 12, 7, 3))[0]
        if zone == "behind the net":
            shot = "wraparound"
        if zone == "point":
            shot = rng.choice(("slap shot", "wrist shot"))
        pp = self.pp_until[side] > self.period * 10000
        play = "power play" if pp else rng.choices(W.PLAY_TYPES, (30, 22, 0, 20, 8, 12))[0]
        attrs: dict[str, Any] = {"shot_type": shot, "zone": zone, "play_type": play}
        if play in ("rush", "breakaway") and rng.random() < 0.45:
            attrs["deke"] = rng.choices(W.MOVES, (40, 40, 12, 8))[0]
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
                    "receiver": pref(self.skater(side, p)),
                    "area": rng.choice(("neutral zone", "offensive zone", "defensive zone")),
                },
            )
            return False
        if r < 0.45:
            self.emit(c, side, self.skater(side), "hit", {"target": pref(self.skater(opp))})
            return False
        if r < 0.52:
            self.emit(c, side, self.skater(side), "takeaway", {"opponent": pref(self.skater(opp))})
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
                c, side, self.skater(side), "puck battle", {"opponent": pref(self.skater(opp))}
            )
            return False
        shooter = self.skater(side)
        attrs = self.goal_attrs(side, ot)
        kind = rng.random()
        if kind < 0.22:
            attrs["blocker"] = pref(self.skater(opp))
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
            attrs["assists"] = [pref(p) for p in helpers[:k]]
            attrs["on_ice"] = {self.tids[s]: [p.pid for p in self.on[s]] for s in (0, 1)}
            self.emit(c, side, shooter, "goal", attrs, 1)
            if self.pp_until[side] > self.period * 10000:
                self.pp_until[side] = -1.0
            self.dead(c, rng.uniform(30.0, 50.0))
            return True
        attrs["goalie"] = pref(self.goalie[opp])
        self.emit(c, side, shooter, "shot on goal", attrs)
        return rng.random() < 0.35
