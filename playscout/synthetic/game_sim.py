"""Play-by-play simulation of one game on a full-video timeline: the state and bookkeeping every
sport's simulator shares (each sport's own game flow is its spec's `simulator`, a Sim subclass).

The simulator writes two things: events (with clock, video time, attributes, running score and
caption) and *spans* of the full game video (live play with a running clock, covered set pieces
with a stopped clock, and uncovered stoppages/breaks). Clip windows tile the covered spans, so
every caption lands in the window whose video span holds its event.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from .captions import caption

if TYPE_CHECKING:  # the sports' simulators subclass Sim, and the league builders import them
    from .roster import League, Player
    from .schedule import GameSpec
    from .spec import SportSpec

Event = dict[str, Any]
# (video_start, video_end, period, clock_elapsed_at_start, clock_running, covered)
Span = tuple[float, float, int, float, bool, bool]


def pref(p: Player) -> dict[str, Any]:
    return {"player_id": p.pid, "name": p.name, "number": p.number}


class Sim:
    """State shared by every sport: video cursor, spans, events, score, on-court sets."""

    def __init__(self, spec: SportSpec, gs: GameSpec, league: League, rng: random.Random) -> None:
        self.sport = spec.name
        self.spec = spec
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
        n = self.spec.league.dressed
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
        board = self.spec.board
        if board.countdown:
            rem = max(0.0, board.period_length(self.period) - c)
            s = int(rem + 0.999)
            return f"{s // 60:02d}:{s % 60:02d}", float(s)
        el = (self.period - 1) * board.period_seconds + c
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
        ev["caption"] = caption(self.spec, ev, self.tnames[0], self.tnames[1])
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


def game_rng(seed: int, sport: str, index: int) -> random.Random:
    """Per-game RNG from a string seed (sha512-based, never the salted hash())."""
    return random.Random(f"playscout-synth:{seed}:{sport}:game:{index}")


def simulate(spec: SportSpec, gs: GameSpec, league: League, seed: int) -> dict[str, Any]:
    sim = spec.simulator(spec, gs, league, game_rng(seed, spec.name, gs.index))
    sim.run()
    return sim.result()
