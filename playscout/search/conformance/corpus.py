"""A small hand-made corpus with known answers: 2 sports, 5 games, 27 documents, 200 clips.

Unique facts the conformance suite relies on:
- "double overtime" appears only in the 401003 ESPN report (BM25 exact term hit);
- the 401002 report says Klay Thompson "sprained his ankle ... limped to the locker room",
  with no word in common with the query "athlete injured" (dense paraphrase hit);
- clip 401002_17 is the only half-court buzzer beater; S100_5 the only free-kick goal.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from playscout.corpus.models import ClipRecord, DocumentRecord

GAMES: dict[str, list[tuple[str, str, int, str, str]]] = {
    "basketball": [
        ("401001", "2019-01-10", 2019, "Los Angeles Lakers", "Boston Celtics"),
        ("401002", "2019-01-12", 2019, "Golden State Warriors", "New York Knicks"),
        ("401003", "2019-02-01", 2019, "Los Angeles Lakers", "Golden State Warriors"),
    ],
    "soccer": [
        ("S100", "2020-03-01", 2020, "Arsenal", "Chelsea"),
        ("S101", "2020-03-08", 2020, "Chelsea", "Liverpool"),
    ],
}
ROSTERS = {
    "Los Angeles Lakers": ["LeBron James", "Anthony Davis", "Austin Reaves"],
    "Boston Celtics": ["Jayson Tatum", "Jaylen Brown", "Al Horford"],
    "Golden State Warriors": ["Stephen Curry", "Klay Thompson", "Draymond Green"],
    "New York Knicks": ["Julius Randle", "RJ Barrett", "Mitchell Robinson"],
    "Arsenal": ["Bukayo Saka", "Martin Odegaard", "Gabriel Jesus"],
    "Chelsea": ["Cole Palmer", "Enzo Fernandez", "Reece James"],
    "Liverpool": ["Mohamed Salah", "Virgil van Dijk", "Alisson Becker"],
}
EVENTS = {
    "basketball": [
        "{p} drains a three pointer from the corner",
        "{p} drives to the basket for a layup",
        "{p} grabs a defensive rebound",
        "{p} commits a turnover under pressure",
        "{p} blocks the shot at the rim",
        "{p} hits two free throws",
    ],
    "soccer": [
        "{p} shoots from outside the box and scores",
        "{p} crosses the ball into the penalty area",
        "{p} is shown a yellow card for a late challenge",
        "{p} takes a corner kick",
        "{p} makes a sliding tackle to win possession",
        "{p} heads the ball wide of the post",
    ],
}
SPECIAL_CAPTIONS = {
    "401002_17": "Stephen Curry banks in a half-court buzzer beater to end the quarter",
    "S100_5": "Bukayo Saka curls a stunning free kick into the top corner",
}
CLIPS_PER_GAME = 40
PERIODS = {"basketball": 4, "soccer": 2}

REPORTS = {
    "401001": [
        "LeBron James scored 31 points as the Los Angeles Lakers beat the Boston Celtics 118-110.",
        "Anthony Davis added 22 points and 14 rebounds while Jayson Tatum led Boston with 28.",
        "The Celtics cut the lead to three in the fourth quarter before James answered with a "
        "step-back jumper and a driving layup.",
        "Jaylen Brown struggled from deep, making two of nine attempts from beyond the arc.",
        "Boston hosts Miami on Saturday while Los Angeles travels to Denver.",
    ],
    "401002": [
        "Stephen Curry hit a half-court shot at the buzzer and the Golden State Warriors beat "
        "the New York Knicks 121-104.",
        "Klay Thompson sprained his ankle in the second quarter and limped to the locker room.",
        "Draymond Green finished with a triple-double of 11 points, 12 rebounds and 10 assists.",
        "Julius Randle had 25 points for New York, which lost for the fifth time in six games.",
        "RJ Barrett added 18 points and Mitchell Robinson blocked four shots.",
    ],
    "401003": [
        "The Los Angeles Lakers outlasted the Golden State Warriors 130-127 in double overtime.",
        "LeBron James forced the first extra period with a corner three and Austin Reaves made "
        "the decisive free throws late.",
        "Stephen Curry scored 41 points, including nine three pointers, in a losing effort.",
        "Anthony Davis fouled out with two minutes left in regulation after 19 points.",
    ],
    "S100": [
        "Bukayo Saka scored a stunning free kick as Arsenal beat Chelsea 2-1 at the Emirates.",
        "Cole Palmer equalised for Chelsea from the penalty spot before half time.",
        "Martin Odegaard set up the winner for Gabriel Jesus with a curling through ball.",
        "Reece James was booked for a late challenge and Chelsea finished the match with ten men.",
    ],
    "S101": [
        "Mohamed Salah scored twice as Liverpool won 3-0 away at Chelsea.",
        "Virgil van Dijk headed in a corner and Alisson Becker kept a clean sheet.",
        "Enzo Fernandez hit the crossbar for Chelsea in the first half.",
    ],
}
SEASON_PLAYERS = {
    "basketball": ["LeBron James", "Stephen Curry", "Jayson Tatum", "Julius Randle"],
    "soccer": ["Bukayo Saka", "Cole Palmer", "Mohamed Salah", "Virgil van Dijk"],
}
SEASON_TEAMS = {
    "basketball": ["Los Angeles Lakers", "Golden State Warriors"],
    "soccer": ["Arsenal", "Chelsea"],
}


def _rng_for(text: str) -> random.Random:
    return random.Random(zlib.crc32(text.encode()))


def _team_of(player: str) -> str:
    return next(t for t, ps in ROSTERS.items() if player in ps)


def documents(sport: str) -> list[DocumentRecord]:
    """Game docs (report + player/team stats) for each game, and season docs."""
    docs: list[DocumentRecord] = []
    for gid, date, season, home, away in GAMES[sport]:
        players = ROSTERS[home] + ROSTERS[away]
        common = dict(
            sport=sport, game_id=gid, date=date, season=season, home_team=home, away_team=away
        )
        # The report is long on purpose: its lines pack into several passages.
        text = "\n".join(REPORTS[gid])
        docs.append(
            DocumentRecord(
                doc_id=f"{gid}_espn_report",
                doc_type="espn_report",
                text=text,
                teams=[home, away],
                players=players,
                **common,
            )
        )
        lines = []
        for p in players:
            r = _rng_for(gid + p)
            unit = "GLS" if sport == "soccer" else "PTS"
            lines.append(f"{p} ({_team_of(p)}): {r.randint(0, 35)} {unit}, {r.randint(0, 12)} REB")
        docs.append(
            DocumentRecord(
                doc_id=f"{gid}_game_stat_player",
                doc_type="game_stat_player",
                text="\n".join(lines),
                teams=[home, away],
                players=players,
                **common,
            )
        )
        docs.append(
            DocumentRecord(
                doc_id=f"{gid}_game_stat_team",
                doc_type="game_stat_team",
                text=f"{home}: shooting 47%, 44 rebounds\n{away}: shooting 41%, 39 rebounds",
                teams=[home, away],
                **common,
            )
        )
    season = GAMES[sport][0][2]
    for p in SEASON_PLAYERS[sport]:
        r = _rng_for(p)
        docs.append(
            DocumentRecord(
                doc_id=f"season_{season}_player_{p.replace(' ', '_')}",
                sport=sport,
                doc_type="season_stat_player",
                text=f"{p} season averages: {r.randint(5, 30)} points per game, "
                f"{r.randint(2, 12)} rebounds per game, {r.randint(40, 82)} games played",
                season=season,
                teams=[_team_of(p)],
                players=[p],
                entity_type="player",
                entity_name=p,
            )
        )
    for t in SEASON_TEAMS[sport]:
        docs.append(
            DocumentRecord(
                doc_id=f"season_{season}_team_{t.replace(' ', '_')}",
                sport=sport,
                doc_type="season_stat_team",
                text=f"{t} season record: wins, losses and rebounds per game for the season",
                season=season,
                teams=[t],
                entity_type="team",
                entity_name=t,
            )
        )
    return docs


def clips(sport: str) -> list[ClipRecord]:
    """40 clips per game, clip i covering video [15 i, 15 i + 12) in period 1 + i*P//40."""
    out: list[ClipRecord] = []
    for gid, date, season, home, away in GAMES[sport]:
        for i in range(CLIPS_PER_GAME):
            team = home if i % 2 == 0 else away
            teams = [home, away] if i % 5 == 0 else [team]
            roster = ROSTERS[team]
            players = [roster[i % 3]] + ([roster[(i + 1) % 3]] if i % 4 == 0 else [])
            cid = f"{gid}_{i}"
            caption = SPECIAL_CAPTIONS.get(cid, EVENTS[sport][i % 6].format(p=players[0]))
            out.append(
                ClipRecord(
                    clip_id=cid,
                    sport=sport,
                    game_id=gid,
                    index=i,
                    period=1 + i * PERIODS[sport] // CLIPS_PER_GAME,
                    video_start=15.0 * i,
                    video_end=15.0 * i + 12.0,
                    teams=teams,
                    players=players,
                    caption=caption,
                    date=date,
                    season=season,
                )
            )
    return out


def shuffled(items: Sequence[Any], seed: int = 7) -> list[Any]:
    """Backends must not depend on input order."""
    out = list(items)
    random.Random(seed).shuffle(out)
    return out


def game_order(sport: str) -> list[str]:
    return [g[0] for g in sorted(GAMES[sport], key=lambda g: (g[1], g[0]))]


class CaptionVideoVectors:
    """Stands in for a video encoder: the 'video' vector of a clip is a text embedding of what
    happens in it, computed here in the test, so that visual search has a known answer."""

    def __init__(self, embedder: Any, by_id: dict[str, str]) -> None:
        self.embedder = embedder
        self.by_id = by_id
        self.calls = 0

    def spec(self) -> dict[str, Any]:
        return {"kind": "precomputed", "model": "conformance-video", "dim": self.embedder.dim}

    def vectors_for(self, sport: str, clip_ids: Sequence[str]) -> np.ndarray:
        self.calls += 1
        return np.asarray(self.embedder.embed_documents([self.by_id[c] for c in clip_ids]))


class VideoTextTower:
    """Query side of CaptionVideoVectors (same vector space, different 'kind')."""

    def __init__(self, embedder: Any) -> None:
        self.embedder = embedder
        self.dim = embedder.dim

    def spec(self) -> dict[str, Any]:
        return {"kind": "openai", "model": "conformance-video", "dim": self.dim}

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self.embedder.embed_queries(texts))

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self.embedder.embed_documents(texts))


def heard_clips() -> list[ClipRecord]:
    """The conformance corpus' basketball clips, three of them with heard text."""
    out = []
    for clip in clips("basketball"):
        if clip.clip_id in ("401001_3", "401002_17"):
            text = "listen to this crowd, a buzzer beater from the logo!"
            clip = clip.model_copy(update={"transcript": text, "audio_events": ["buzzer"]})
        elif clip.clip_id == "401003_8":
            clip = clip.model_copy(update={"transcript": "buzzer sounds for the timeout"})
        out.append(clip)
    return out
