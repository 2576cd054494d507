"""Per-game facts for the game-level tasks (T4-T6, STARBench, LCric): teams, period scores,
box-score lines and play-by-play, read from the synthetic corpus."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from playscout.corpus import Corpus
from playscout.eval.tasks.synthetic import game_events
from playscout.synthetic.questions import _parse_stats


@dataclass
class GameFacts:
    sport: str
    game_id: str
    date: str
    home: str
    away: str
    period_scores: list[list[int]]
    players: dict[str, dict[str, int]] = field(default_factory=dict)
    team_of: dict[str, str] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)

    @property
    def final(self) -> tuple[int, int]:
        return sum(p[0] for p in self.period_scores), sum(p[1] for p in self.period_scores)

    @property
    def winner(self) -> str | None:
        h, a = self.final
        return self.home if h > a else self.away if a > h else None

    def label(self) -> str:
        return f"the {self.date} game between the {self.home} and the {self.away}"

    def leader(self, team: str, stat: str) -> tuple[str, int] | None:
        rows = [(n, s.get(stat, 0)) for n, s in self.players.items() if self.team_of.get(n) == team]
        rows.sort(key=lambda x: (-x[1], x[0]))
        if len(rows) < 2 or rows[0][1] == rows[1][1]:
            return None  # a tie has no single answer
        return rows[0]


def load_game(corpus: Corpus, sport: str, game_id: str) -> GameFacts:
    pbp = game_events(corpus, sport, game_id)
    g = GameFacts(
        sport,
        game_id,
        str(pbp.get("date")),
        pbp["home_team"],
        pbp["away_team"],
        [list(p) for p in pbp.get("period_scores", [])],
        events=pbp.get("events", []),
    )
    for doc in corpus.game_documents(sport, game_id):
        if doc.doc_type != "game_stat_player":
            continue
        team = None
        for line in doc.text.splitlines():
            if line.startswith("### "):
                team = line[4:].strip()
            parsed = _parse_stats(line)
            for name, stats in parsed.items():
                g.players[name] = stats
                if team:
                    g.team_of[name] = team
    return g


def games(corpus: Corpus, sport: str, limit: int | None) -> list[GameFacts]:
    return [load_game(corpus, sport, gid) for gid in corpus.games_in_order(sport)[: limit or 5]]
