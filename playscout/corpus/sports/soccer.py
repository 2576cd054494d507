"""Soccer: two 45-minute halves on an elapsed match clock, 15-minute extra-time periods."""

from __future__ import annotations

from playscout.corpus.sports.record import Board, Coverage, SportRecord

RECORD = SportRecord(
    name="soccer",
    leagues=("Premier League", "LaLiga"),
    board=Board(  # 1H, 2H / ET1, ET2
        countdown=False,
        regulation_periods=2,
        period_seconds=2700,
        overtime_seconds=900,
        period_format="{n}H",
        first_extra="ET1",
        extra_format="ET{n}",
    ),
    period_word="half",
    lead_stat="passes",
    forecast_margin=1,
    forecast_periods=1,
    coverage=Coverage(
        directionality="scored vs missed, won vs lost, led vs trailed",
        numbers=(
            "goals, assists, saves, shots, shots on target, tackles, fouls, "
            "yellow cards, red cards, corners, possession percentage, "
            "pass completions, interceptions, score, margin, time remaining"
        ),
        timing="a half, extra time, stoppage time, time remaining, or sequence",
        examples=(
            '   - Example: "scored multiple goals" does NOT cover "scored 3 goals"\n'
            '   - Example: "played well" does NOT cover "completed 42 passes and made 5 interceptions"'
        ),
    ),
    team_aliases={
        "man utd": "Manchester United",
        "man united": "Manchester United",
        "united": "Manchester United",
        "man city": "Manchester City",
        "city": "Manchester City",
        "spurs": "Tottenham Hotspur",
        "tottenham": "Tottenham Hotspur",
        "gunners": "Arsenal",
        "blues": "Chelsea",
        "reds": "Liverpool",
        "toffees": "Everton",
        "villa": "Aston Villa",
        "wolves": "Wolverhampton Wanderers",
        "hammers": "West Ham United",
        "west ham": "West Ham United",
        "saints": "Southampton",
        "magpies": "Newcastle United",
        "newcastle": "Newcastle United",
        "foxes": "Leicester City",
        "leicester": "Leicester City",
        "palace": "Crystal Palace",
        "brighton": "Brighton & Hove Albion",
        "seagulls": "Brighton & Hove Albion",
        "barca": "Barcelona",
        "barça": "Barcelona",
        "fc barcelona": "Barcelona",
        "real": "Real Madrid",
        "madrid": "Real Madrid",
        "los blancos": "Real Madrid",
        "atleti": "Atletico Madrid",
        "atlético madrid": "Atletico Madrid",
        "atletico": "Atletico Madrid",
        "sevilla fc": "Sevilla",
        "betis": "Real Betis",
        "sociedad": "Real Sociedad",
        "la real": "Real Sociedad",
        "villarreal cf": "Villarreal",
        "yellow submarine": "Villarreal",
        "athletic": "Athletic Bilbao",
        "athletic club": "Athletic Bilbao",
        "valencia cf": "Valencia",
    },
)
