"""What the game-level tasks share. Generated questions (T4-T6, STARBench, LCric) are made from
a game's facts in the synthetic corpus: teams, period scores, box-score lines and
play-by-play. Published T4 and T6 items name games: a game in the corpus is asked through the
agent over that game alone (its clips and, by question type, its statistics; never its
report, which the answers derive from; never another game); a game not in the corpus is asked
about its full-game video file, as the paper's models are; a game in neither is
missing_input, never answered from another game."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playscout.corpus import Corpus
from playscout.eval.errors import RunError
from playscout.eval.tasks.guard import BackendView
from playscout.eval.tasks.media import find, media_root
from playscout.eval.tasks.synthetic import game_events
from playscout.eval.tasks.task import Instance, TaskEnv
from playscout.eval.tasks.video_files import require_vlm
from playscout.synthetic.questions import _parse_stats

REPORT = "espn_report"


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


def games_view(game_ids: set[str]) -> BackendView:
    """Only these games' clips and documents, without their reports."""
    return BackendView(
        hide_doc=lambda d: d.game_id not in game_ids or d.doc_type == REPORT,
        hide_clip=lambda c: c.game_id not in game_ids,
    )


def in_corpus(env: TaskEnv, sport: str, game_ids: list[str]) -> bool:
    corpus = env.corpus
    if corpus is None or not game_ids or sport not in corpus.sports():
        return False
    return all(g in corpus.games(sport) for g in game_ids)


def route_games(env: TaskEnv, inst: Instance, game_ids: list[str], data: Path) -> None:
    """Corpus route when every game is in the corpus, else the video files, else missing."""
    if in_corpus(env, inst.sport, game_ids):
        inst.meta["route"] = "corpus"
        return
    where = "no corpus given" if env.corpus is None else f"not in the corpus ({inst.sport})"
    named = ", ".join(game_ids) or "(no game id)"
    if env.mode == "oracle":
        inst.missing = f"game {named} {where}; oracle mode has no captions for a video file"
        return
    root = media_root(data, env.media)
    refs = inst.meta.get("video_refs") or []
    found = [find(str(r), root) for r in refs]
    if refs and all(found):
        inst.meta["videos"] = [str(p) for p in found]
        inst.meta["route"] = "video file"
        return
    absent = next((r for r, p in zip(refs, found, strict=True) if p is None), None)
    video = f"its video {absent!r} is not under {root}" if absent else "it names no video"
    inst.missing = f"game {named} {where} and {video}"


def check_agent(env: TaskEnv, task: str) -> None:
    """A published game task over a corpus runs the agent; in default mode it looks at video."""
    if env.corpus is not None and env.policy == "llm" and env.client is None:
        raise RunError(
            f"{task} over a corpus runs the agent: pass --llm-url/--llm-model, or --policy workflow"
        )
    if env.mode == "default" and env.models.vlm is None:
        require_vlm(env, task, "looks at game video (video_qa or the video file)")
