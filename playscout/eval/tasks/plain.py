"""Plain questions a newcomer asks first, made from the corpus' own box scores and reports:
who led a team in its sport's lead stat, the final score, who won, how many of a stat a player
had, a team's record after the game. Each has its gold answer read from the game's documents
(box scores with the parser the offline reader uses, corpus/boxscore.py; records with the T9
generator's report patterns) and its gold documents, is phrased one of a few ways, and names
its game by date and teams (full name, nickname or city) so the answer is unique. T9's
questions identify a game through documents and answer from clips; these measure the document
answers themselves. Made at load time, deterministic per game; run through the agent and
judged like T9 (`eval judge`)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from playscout.corpus import Corpus, DocumentRecord, Question
from playscout.corpus.boxscore import finals, stat_rows
from playscout.corpus.models import GoldEvidence
from playscout.corpus.sports import sport as sport_record
from playscout.eval.errors import RunError
from playscout.eval.tasks.registry import declare
from playscout.eval.tasks.synthetic import rng_for
from playscout.eval.tasks.t9 import T9Task, question_instance
from playscout.eval.tasks.task import Instance, TaskEnv
from playscout.synthetic.questions import _report_facts as report_facts
from playscout.synthetic.questions import team_phrase
from playscout.synthetic.sports import SPECS

KINDS = ("leader", "score", "winner", "stat", "record")
PER_SPORT = 20  # questions per sport when the run gives no --limit
_STAT_CHOICES = 3  # a stat question asks one of a row's first counts (points, rebounds, ...)


def _question(kind: str, sport: str, game: str, text: str, answer: str, doc_type: str) -> Question:
    return Question(
        id=f"{kind}_{game}",
        question=text,
        answer=answer,
        sport=sport,
        answer_type=kind,
        sources=[doc_type],
        gold=GoldEvidence(game_id=game, doc_ids=[f"{game}_{doc_type}"], clip_ids=[]),
    )


def named(sport: str, name: str, rng: random.Random) -> str:
    """How a question names a team: full name, nickname or city, as the T9 questions do
    (synthetic/questions.team_phrase); the name as written for a sport the generator does not
    know."""
    return team_phrase(sport, name, rng) if sport in SPECS else name


def game_questions(sport: str, docs: dict[str, DocumentRecord], turn: int) -> list[Question]:
    """One question of each kind the game's documents answer uniquely (a tie leads nobody, a
    draw has no winner), in one of a few phrasings each, the kinds rotated by `turn` so the
    first questions of a sport cover every kind."""
    players, teams = docs.get("game_stat_player"), docs.get("game_stat_team")
    info = players or teams
    if info is None or not (info.game_id and info.date and info.home_team and info.away_team):
        return []
    game, date, home, away = info.game_id, info.date, info.home_team, info.away_team
    rng = rng_for("plain", sport, game)
    between = f"the {date} game between {named(sport, home, rng)} and {named(sport, away, rng)}"
    made: dict[str, Question] = {}
    rows = stat_rows(players.text) if players else []
    stat = sport_record(sport).lead_stat
    side = rng.choice([home, away])
    opponent = away if side == home else home
    their = f"their {date} game against {named(sport, opponent, rng)}"
    counted = sorted(
        ((r.counts[stat], r.name) for r in rows if r.team == side and stat in r.counts),
        reverse=True,
    )
    if len(counted) > 1 and counted[0][0] > counted[1][0]:
        team = named(sport, side, rng)
        phrase = "scoring" if stat == "points" else stat
        text = rng.choice(
            [
                f"Who led {team} in {phrase} in {their}?",
                f"Who had the most {stat} for {team} in {their}?",
                *([f"Who was the top scorer for {team} in {their}?"] if stat == "points" else []),
            ]
        )
        made["leader"] = _question("leader", sport, game, text, counted[0][1], "game_stat_player")
    played = [r for r in rows if any(r.counts.values())]
    if played:
        row = rng.choice(played)
        label = rng.choice(list(row.counts)[:_STAT_CHOICES])
        verb = "score" if label in ("points", "goals") and rng.random() < 0.5 else "have"
        text = f"How many {label} did {row.name} {verb} in {between}?"
        made["stat"] = _question(
            "stat", sport, game, text, str(row.counts[label]), "game_stat_player"
        )
    final = finals(stat_rows(teams.text)) if teams else []
    if len(final) == 2:
        (_, h), (_, a) = final
        text = rng.choice([f"What was the final score of {between}?", f"How did {between} end?"])
        made["score"] = _question("score", sport, game, text, f"{h}-{a}", "game_stat_team")
        if h != a:
            text = rng.choice(
                [
                    f"Who won {between}?",
                    f"Which team won {between}?",
                    f"Who beat whom in {between}?",
                ]
            )
            winner = home if h > a else away
            made["winner"] = _question("winner", sport, game, text, winner, "game_stat_team")
    report = docs.get("espn_report")
    records = (
        [f for f in report_facts(report.text, sport, (home, away)) if f[0] == "record"]
        if (report and sport in SPECS)
        else []
    )
    if len(records) == 1:
        _, team, record = records[0]
        other = away if team == home else home
        whose = named(sport, team, rng)
        whose += "'" if whose.endswith("s") else "'s"
        text = (
            f"What was {whose} record after their {date} game against {named(sport, other, rng)}?"
        )
        made["record"] = _question("record", sport, game, text, record, "espn_report")
    order = KINDS[turn % len(KINDS) :] + KINDS[: turn % len(KINDS)]
    return [made[k] for k in order if k in made]


def plain_questions(corpus: Corpus, sport: str, limit: int | None = None) -> list[Question]:
    """Each game's first question, then each game's second, ...: `limit` questions spread
    over the games and kinds."""
    per_game = [
        game_questions(sport, {d.doc_type: d for d in corpus.game_documents(sport, g)}, i)
        for i, g in enumerate(corpus.games_in_order(sport))
    ]
    out = [qs[r] for r in range(len(KINDS)) for qs in per_game if r < len(qs)]
    return out[: limit or PER_SPORT]


class PlainTask(T9Task):
    name = "plain"
    description = (
        "Plain box-score questions (who led, final score, who won, how many) through the agent."
    )

    def empty_sports(self, corpus: Corpus, sports: Sequence[str]) -> list[str]:
        return [sport for sport in sports if not plain_questions(corpus, sport, 1)]

    def questions(self, env: TaskEnv, sports: Sequence[str], limit: int | None) -> list[Instance]:
        corpus = env.need_corpus()
        out: list[Instance] = []
        for sport in sports:
            made = plain_questions(corpus, sport, limit)
            if not made:
                raise RunError(
                    f"{corpus.root}: no {sport} game has the box scores plain questions are "
                    "made from (game_stat_player, game_stat_team)"
                )
            out += [question_instance(sport, q) for q in made]
        return out


PLAIN = declare(
    "plain",
    metric="answers judged correct by `eval judge` (LLM or deterministic equivalence)",
    generated=PlainTask,
)
