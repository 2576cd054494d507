"""Hockey: three 20-minute periods on a countdown clock, 5-minute overtimes."""

from __future__ import annotations

from playscout.corpus.sports.record import Board, Coverage, SportRecord

RECORD = SportRecord(
    name="hockey",
    leagues=("NHL",),
    board=Board(  # 1ST..3RD / OT, 2OT
        countdown=True,
        regulation_periods=3,
        period_seconds=1200,
        overtime_seconds=300,
        period_format="{nth}",
        first_extra="OT",
        extra_format="{n}OT",
    ),
    period_word="period",
    lead_stat="points",
    forecast_margin=2,
    forecast_periods=2,
    coverage=Coverage(
        directionality="made vs missed, won vs lost, led vs trailed",
        numbers="goals, assists, saves, shots, score, margin, time remaining",
        timing="a period, overtime, time remaining, or sequence",
        examples=(
            '   - Example: "scored a lot" does NOT cover "scored 3 goals"\n'
            '   - Example: "played well" does NOT cover "made 35 saves and 2 assists"'
        ),
    ),
    team_aliases={
        "habs": "Montreal Canadiens",
        "bolts": "Tampa Bay Lightning",
        "leafs": "Toronto Maple Leafs",
        "sens": "Ottawa Senators",
        "caps": "Washington Capitals",
        "pens": "Pittsburgh Penguins",
        "hawks": "Chicago Blackhawks",
        "hurricanes": "Carolina Hurricanes",
        "canes": "Carolina Hurricanes",
        "wings": "Detroit Red Wings",
        "nucks": "Vancouver Canucks",
        "avs": "Colorado Avalanche",
        "jackets": "Columbus Blue Jackets",
        "cbj": "Columbus Blue Jackets",
        "preds": "Nashville Predators",
        "yotes": "Arizona Coyotes",
        "knights": "Vegas Golden Knights",
        "vgk": "Vegas Golden Knights",
        "isles": "New York Islanders",
        "rangers": "New York Rangers",
        "flyers": "Philadelphia Flyers",
        "devils": "New Jersey Devils",
        "sabres": "Buffalo Sabres",
        "bruins": "Boston Bruins",
        "panthers": "Florida Panthers",
        "kings": "Los Angeles Kings",
        "ducks": "Anaheim Ducks",
        "sharks": "San Jose Sharks",
        "oilers": "Edmonton Oilers",
        "flames": "Calgary Flames",
        "jets": "Winnipeg Jets",
        "wild": "Minnesota Wild",
        "blues": "St. Louis Blues",
        "stars": "Dallas Stars",
        "kraken": "Seattle Kraken",
    },
)
