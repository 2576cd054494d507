"""A hand-written two-game corpus in the T9 layout: small enough to reason about every value,
independent of the synthetic generator so loader bugs and generator bugs cannot hide each other."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def _w(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=1))


def window(
    game_id: str, i: int, start: float, period: int, captions: list[str], players: dict[str, str]
) -> dict[str, Any]:
    return {
        "window_id": f"{game_id}_{i}",
        "period": period,
        "video_window": {"start": start, "end": start + 12.0},
        "event_ids": list(range(len(captions))),
        "metadata": {
            "teams": {"1": "Charlotte Hornets", "2": "Boston Celtics"},
            "players": players,
            "game_clock_window": {
                "start_remaining": "05:21",
                "end_remaining": "05:09",
                "start_elapsed": "06:39",
                "end_elapsed": "06:51",
            },
            "events": {str(k): {"caption": c} for k, c in enumerate(captions)},
        },
    }


def write_minicorpus(root: Path) -> Path:
    d = root / "data" / "basketball"
    games = {}
    for game_id, date, home, away in (
        ("1001", "2019-01-12", "Charlotte Hornets", "Boston Celtics"),
        ("1002", "2019-01-14", "Boston Celtics", "Charlotte Hornets"),
    ):
        g = f"games/{game_id}"
        games[game_id] = {
            "clips_metadata": f"{g}/clips_metadata.json",
            "clip_paths": f"clips/{game_id}/clip_paths.json",
            "game_info": f"{g}/game_info.json",
            "espn_report": f"{g}/espn_report.txt",
            "game_stat_player": f"{g}/game_stat_player.txt",
            "game_stat_team": f"{g}/game_stat_team.txt",
        }
        _w(
            d / g / "game_info.json",
            {
                "date": date,
                "season": 2019,
                "season_type": "regular-season",
                "home_team": home,
                "away_team": away,
            },
        )
        _w(
            d / g / "espn_report.txt",
            f"The {home} beat the {away} for a fourth straight win.\nKemba Walker scored 31.",
        )
        _w(
            d / g / "game_stat_player.txt",
            "### Charlotte Hornets\nKemba Walker: 31 points, 4 rebounds\nTerry Rozier: 12 points\n"
            "### Boston Celtics\nKyrie Irving: 25 points\n",
        )
        _w(
            d / g / "game_stat_team.txt",
            "### Charlotte Hornets\n112 points\n### Boston Celtics\n104 points\n",
        )
        wins = [
            window(
                game_id,
                1,
                30.0,
                1,
                ["With 11:02 left in the 1st quarter, Kemba Walker (#15) made a floater."],
                {"11": "Kemba Walker", "12": "Kyrie Irving"},
            ),
            window(game_id, 0, 10.0, 1, [], {"11": "Kemba Walker"}),
            window(
                game_id,
                2,
                800.0,
                3,
                ["Terry Rozier (#3) made a step-back three.", "Timeout Boston."],
                {"13": "Terry Rozier"},
            ),
        ]
        _w(d / g / "clips_metadata.json", {"windows": {w["window_id"]: w for w in wins}})
        _w(
            d / "clips" / game_id / "clip_paths.json",
            {w["window_id"]: f"{w['window_id']}.mp4" for w in wins},
        )
    _w(d / "metadata.json", games)
    _w(
        d / "metadata_season_player.json",
        {
            "11": {
                "18-19": {
                    "season_stat_player": "seasons/p11.txt",
                    "entity_info": "seasons/p11.json",
                }
            }
        },
    )
    _w(d / "seasons/p11.txt", "Kemba Walker: 25.6 points per game in 82 games")
    _w(d / "seasons/p11.json", {"entity_name": "Kemba Walker", "team_name": "Charlotte Hornets"})
    _w(
        d / "metadata_season_team.json",
        {"1": {"18-19": {"season_stat_team": "seasons/t1.txt", "entity_info": "seasons/t1.json"}}},
    )
    _w(d / "seasons/t1.txt", "Charlotte Hornets: 39-43")
    _w(d / "seasons/t1.json", {"entity_name": "Charlotte Hornets"})
    _w(
        root / "questions" / "basketball.json",
        {"questions": [{"qid": 7, "query": "What move did Rozier use?", "answer": "step back"}]},
    )
    return root
