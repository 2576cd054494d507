"""Soccer game simulator: an eleven per side, possession play (passes, duels, dribbles,
tackles, fouls, cards, offsides, shots) over two 45-minute halves with stoppage time, and
second-half substitutions (halves and their length from the sport's Board).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...game_sim import Sim, pref
from . import words as W

if TYPE_CHECKING:
    from ...roster import Player


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
        board = self.spec.board
        for half in range(1, board.regulation_periods + 1):
            self.start_period(0.0 if half == 1 else 900.0)
            plen = board.period_seconds + rng.uniform(60.0, 200.0) * half
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
        self.emit(c, side, on, "substitution", {"replaced": pref(off)})
        self.set_lineup(side, [on if p is off else p for p in self.on[side]])

    def shot_attrs(self, poss: int) -> dict[str, Any]:
        rng = self.rng
        pos = rng.choices(W.POSITIONS, (14, 3, 22, 14, 14, 33))[0]
        body = (
            "header"
            if pos in ("six-yard box", "penalty spot") and rng.random() < 0.3
            else rng.choices(W.BODY_PARTS, (55, 35, 10))[0]
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
        play = rng.choices(W.PLAY_TYPES[:7], (16, 22, 10, 8, 8, 14, 12))[0]
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
            attrs["skill_move"] = rng.choices(W.MOVES, (25, 15, 12, 20, 28))[0]
        return attrs

    def play(self, c: float, poss: int) -> int:
        rng = self.rng
        opp = 1 - poss
        r = rng.random()
        if r < 0.5:
            p = self.outfield(poss)
            recv = self.outfield(poss, p)
            a: dict[str, Any] = {"receiver": pref(recv)}
            if rng.random() < 0.12:
                a["pass_type"] = rng.choice(
                    ("through ball", "cross", "long ball", "one-two", "cutback")
                )
            self.emit(c, poss, p, "pass", a)
            return poss
        if r < 0.6:
            w = rng.randrange(2)
            self.emit(c, w, self.outfield(w), "duel", {"opponent": pref(self.outfield(1 - w))})
            return w
        if r < 0.65:
            a = {"opponent": pref(self.outfield(opp))}
            if rng.random() < 0.4:
                a["skill_move"] = rng.choices(W.MOVES, (25, 15, 12, 20, 28))[0]
            self.emit(c, poss, self.outfield(poss), "dribble", a)
            return poss
        if r < 0.73:
            kind = "tackle" if rng.random() < 0.5 else "interception"
            self.emit(c, opp, self.outfield(opp), kind, {"opponent": pref(self.outfield(poss))})
            return opp
        if r < 0.78:
            self.emit(c, opp, self.outfield(opp), "clearance", {})
            return poss if rng.random() < 0.4 else opp
        if r < 0.805:
            fouler = self.outfield(opp)
            self.emit(c, opp, fouler, "foul", {"fouled": pref(self.outfield(poss))})
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
                attrs["assist"] = pref(self.outfield(poss, shooter))
            self.emit(c, poss, shooter, "goal", attrs, 1)
            return opp
        if r < goal_p + 0.25:
            attrs["goalkeeper"] = pref(self.keeper(opp))
            self.emit(c, poss, shooter, "shot saved", attrs)
            if rng.random() < 0.35:
                self.emit(c, poss, self.outfield(poss), "corner", {})
            return opp
        if r < goal_p + 0.45:
            attrs["blocker"] = pref(self.outfield(opp))
            self.emit(c, poss, shooter, "shot blocked", attrs)
            return poss
        self.emit(c, poss, shooter, "shot missed", attrs)
        return opp
