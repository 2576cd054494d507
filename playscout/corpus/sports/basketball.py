"""Basketball: four 12-minute quarters on a countdown clock, 5-minute overtimes."""

from __future__ import annotations

from playscout.corpus.sports.record import Board, Coverage, SportRecord

RECORD = SportRecord(
    name="basketball",
    leagues=("NBA", "NCAA", "EuroLeague"),
    board=Board(  # Q1..Q4 / OT, 2OT
        countdown=True,
        regulation_periods=4,
        period_seconds=720,
        overtime_seconds=300,
        period_format="Q{n}",
        first_extra="OT",
        extra_format="{n}OT",
    ),
    period_word="quarter",
    lead_stat="points",
    forecast_margin=10,
    forecast_periods=2,
    coverage=Coverage(
        directionality="made vs missed, won vs lost, led vs trailed",
        numbers="points, rebounds, assists, score, margin, time remaining",
        timing="a quarter, half, time remaining, or sequence",
        examples=(
            '   - Example: "scored a lot" does NOT cover "scored 28 points"\n'
            '   - Example: "played well" does NOT cover "grabbed 10 rebounds and 5 assists"'
        ),
    ),
    team_aliases={
        "sixers": "Philadelphia 76ers",
        "76ers": "Philadelphia 76ers",
        "cavs": "Cleveland Cavaliers",
        "mavs": "Dallas Mavericks",
        "dubs": "Golden State Warriors",
        "warriors": "Golden State Warriors",
        "lakers": "Los Angeles Lakers",
        "clips": "Los Angeles Clippers",
        "blazers": "Portland Trail Blazers",
        "trail blazers": "Portland Trail Blazers",
        "wolves": "Minnesota Timberwolves",
        "t-wolves": "Minnesota Timberwolves",
        "pels": "New Orleans Pelicans",
        "nola": "New Orleans Pelicans",
        "okc": "Oklahoma City Thunder",
        "knicks": "New York Knicks",
        "nets": "Brooklyn Nets",
        "celts": "Boston Celtics",
        "c's": "Boston Celtics",
        "bucks": "Milwaukee Bucks",
        "heat": "Miami Heat",
        "spurs": "San Antonio Spurs",
        "suns": "Phoenix Suns",
        "nugs": "Denver Nuggets",
        "grizz": "Memphis Grizzlies",
        "hawks": "Atlanta Hawks",
        "hornets": "Charlotte Hornets",
        "raps": "Toronto Raptors",
        "wiz": "Washington Wizards",
        "kings": "Sacramento Kings",
        "jazz": "Utah Jazz",
        "magic": "Orlando Magic",
        "pistons": "Detroit Pistons",
        "pacers": "Indiana Pacers",
        "bulls": "Chicago Bulls",
        "rockets": "Houston Rockets",
    },
)
