"""Soccer vocabulary: the Premier League and La Liga clubs, their short forms, and the
clip-level words of a shot.

Clip-level values are video-only facts (documents never contain them); captions spell them and
the question generator reads them back, so they are defined once, here. Every short form must
resolve to exactly one club in playscout/tools/entities.py (tests check that).
"""

from __future__ import annotations

EPL_TEAMS: tuple[str, ...] = (
    "Arsenal",
    "Aston Villa",
    "Bournemouth",
    "Brentford",
    "Brighton & Hove Albion",
    "Chelsea",
    "Crystal Palace",
    "Everton",
    "Fulham",
    "Leeds United",
    "Leicester City",
    "Liverpool",
    "Manchester City",
    "Manchester United",
    "Newcastle United",
    "Nottingham Forest",
    "Southampton",
    "Tottenham Hotspur",
    "West Ham United",
    "Wolverhampton Wanderers",
    "Burnley",
    "Sheffield United",
    "Watford",
    "Norwich City",
    "West Bromwich Albion",
    "Luton Town",
)
LALIGA_TEAMS: tuple[str, ...] = (
    "Real Madrid",
    "Barcelona",
    "Atletico Madrid",
    "Sevilla",
    "Real Sociedad",
    "Real Betis",
    "Villarreal",
    "Athletic Bilbao",
    "Valencia",
    "Osasuna",
    "Celta Vigo",
    "Rayo Vallecano",
    "Getafe",
    "Mallorca",
    "Girona",
    "Cadiz",
    "Almeria",
    "Espanyol",
    "Elche",
    "Real Valladolid",
    "Granada",
    "Levante",
    "Alaves",
    "Eibar",
    "Las Palmas",
)

SHORT: dict[str, tuple[str, ...]] = {
    "Aston Villa": ("Villa",),
    "Brighton & Hove Albion": ("Brighton",),
    "Crystal Palace": ("Palace",),
    "Leeds United": ("Leeds",),
    "Leicester City": ("Leicester",),
    "Manchester City": ("City", "Man City"),
    "Manchester United": ("United", "Man United"),
    "Newcastle United": ("Newcastle",),
    "Nottingham Forest": ("Forest",),
    "Tottenham Hotspur": ("Spurs", "Tottenham"),
    "West Ham United": ("West Ham",),
    "Wolverhampton Wanderers": ("Wolves",),
    "Sheffield United": ("Sheffield",),
    "Norwich City": ("Norwich",),
    "Luton Town": ("Luton",),
    "Atletico Madrid": ("Atletico",),
    "Real Sociedad": ("Sociedad",),
    "Real Betis": ("Betis",),
    "Athletic Bilbao": ("Athletic",),
    "Celta Vigo": ("Celta",),
    "Rayo Vallecano": ("Rayo",),
    "Real Valladolid": ("Valladolid",),
}

BODY_PARTS = ("right foot", "left foot", "header")
SHOT_TYPES = (
    "volley",
    "half-volley",
    "chip",
    "curler",
    "placed finish",
    "tap-in",
    "long-range strike",
    "penalty kick",
)
POSITIONS = (
    "six-yard box",
    "penalty spot",
    "edge of the box",
    "left side of the box",
    "right side of the box",
    "outside the box",
)
PLAY_TYPES = (
    "through ball",
    "cross",
    "cutback",
    "long ball",
    "one-two",
    "counter-attack",
    "corner kick",
    "free kick",
)
MOVES = ("step-over", "nutmeg", "Cruyff turn", "drag-back", "body feint")
