"""The play-by-play file a user brings: malformed input is one line naming file and field."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from playscout.corpus.errors import PlayByPlayError
from playscout.corpus.pbp import dump_pbp, load_pbp

GAME = {
    "game_id": "g1",
    "sport": "hockey",
    "date": "2023-01-02",
    "season": 2023,
    "home_team": "Boston Bruins",
    "away_team": "Buffalo Sabres",
    "home_team_id": "1",
    "away_team_id": "2",
    "events": [
        {
            "event_id": 1,
            "period": 1,
            "clock": "19:58",
            "type": "faceoff",
            "home_score": 0,
            "away_score": 0,
        }
    ],
}


def test_round_trip_and_derived_codes(tmp_path: Path) -> None:
    path = tmp_path / "pbp.json"
    path.write_bytes(dump_pbp([GAME]))
    (game,) = load_pbp(path)
    assert game.codes() == ("BRU", "SAB")
    assert game.events[0].clock_seconds == 19 * 60 + 58


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"{not json", "not a readable JSON"),
        (orjson.dumps({"games": []}), "with games"),
        (orjson.dumps({**GAME, "sport": "cricket"}), "game 0: sport"),
        (
            orjson.dumps({**GAME, "events": [{**GAME["events"][0], "clock": "7 min"}]}),
            "events.0.clock",
        ),
        (orjson.dumps({"games": [GAME, GAME]}), "repeated: g1"),
    ],
)
def test_malformed_files_fail_with_one_line(tmp_path: Path, content: bytes, expected: str) -> None:
    path = tmp_path / "pbp.json"
    path.write_bytes(content)
    with pytest.raises(PlayByPlayError) as info:
        load_pbp(path)
    assert expected in str(info.value) and "\n" not in str(info.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(PlayByPlayError, match="not found"):
        load_pbp(tmp_path / "nope.json")
