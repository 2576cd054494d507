"""Basketball game simulator: possessions of 5-21 s (passes, shots, rebounds, free throws,
turnovers, fouls), timeouts and substitutions over four 12-minute quarters plus overtimes
(period count and lengths from the sport's scoreboard Board).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...game_sim import Sim, pref
from . import words as W

if TYPE_CHECKING:
    from ...roster import Player


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
        board = self.spec.board
        while self.period < board.regulation_periods or self.score[0] == self.score[1]:
            brk = 0.0 if self.period == 0 else (900.0 if self.period == 2 else 130.0)
            self.start_period(brk)
            plen = float(board.period_length(self.period))
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
                        c + part, off, p, "pass", {"receiver": pref(self.pick(off, exclude=p))}
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
            zone = rng.choices(W.ZONES_3, (15, 15, 22, 22, 26))[0]
            shot = rng.choices(W.SHOT_TYPES_3, (55, 25, 12, 8))[0]
            play = rng.choices(W.PLAY_TYPES, (20, 12, 2, 12, 35, 8, 1, 10))[0]
        else:
            shot = rng.choices(W.SHOT_TYPES_2, (30, 10, 10, 6, 4, 3, 20, 7, 10))[0]
            zone = (
                "restricted area"
                if shot in W.RIM
                else "paint"
                if shot in W.PAINT
                else rng.choice(("mid-range", "mid-range", "paint"))
            )
            play = rng.choices(W.PLAY_TYPES, (22, 14, 12, 14, 6, 8, 14, 10))[0]
            if shot in ("tip-in",):
                play = "cut"
        attrs: dict[str, Any] = {"shot_type": shot, "zone": zone, "play_type": play}
        if shot == "step-back jumper":
            attrs["dribble_move"] = "step back"
        elif (
            play in ("isolation", "pick-and-roll", "transition", "post-up") and rng.random() < 0.55
        ):
            attrs["dribble_move"] = rng.choices(W.MOVES, (30, 12, 18, 8, 10, 12, 10))[0]
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
                    c, off, p, "turnover", {"kind": "bad pass", "stolen_by": pref(self.pick(dfn))}
                )
            else:
                kind = rng.choice(("bad pass", "traveling", "offensive foul", "out of bounds"))
                self.emit(c, off, p, "turnover", {"kind": kind})
                self.stoppage(c)
            return dfn, c
        if r < 0.19:  # non-shooting foul, same offense keeps the ball
            p = self.pick(dfn)
            self.emit(c, dfn, p, "foul", {"kind": "personal", "fouled": pref(self.pick(off))})
            self.stoppage(c)
            return off, c
        for _attempt in range(3):
            shooter = self.pick(off)
            three = rng.random() < 0.39
            fouled = rng.random() < 0.09
            made = rng.random() < (0.36 if three else 0.53) * (0.7 if fouled else 1.0)
            attrs = self.shot_attrs(three, made)
            if made and rng.random() < 0.62:
                attrs["assist"] = pref(self.pick(off, exclude=shooter))
            if not made and not three and rng.random() < 0.1:
                attrs["blocked_by"] = pref(self.pick(dfn))
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
                self.emit(c, dfn, fouler, "foul", {"kind": "shooting", "fouled": pref(shooter)})
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
