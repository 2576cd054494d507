"""Basketball vocabulary: the NBA's teams and the clip-level words of a shot.

Clip-level values are video-only facts (documents never contain them); captions spell them and
the question generator reads them back, so they are defined once, here.
"""

from __future__ import annotations

TEAMS: tuple[str, ...] = (
    "Atlanta Hawks",
    "Boston Celtics",
    "Brooklyn Nets",
    "Charlotte Hornets",
    "Chicago Bulls",
    "Cleveland Cavaliers",
    "Dallas Mavericks",
    "Denver Nuggets",
    "Detroit Pistons",
    "Golden State Warriors",
    "Houston Rockets",
    "Indiana Pacers",
    "Los Angeles Clippers",
    "Los Angeles Lakers",
    "Memphis Grizzlies",
    "Miami Heat",
    "Milwaukee Bucks",
    "Minnesota Timberwolves",
    "New Orleans Pelicans",
    "New York Knicks",
    "Oklahoma City Thunder",
    "Orlando Magic",
    "Philadelphia 76ers",
    "Phoenix Suns",
    "Portland Trail Blazers",
    "Sacramento Kings",
    "San Antonio Spurs",
    "Toronto Raptors",
    "Utah Jazz",
    "Washington Wizards",
)

SHOT_TYPES_2 = (
    "layup",
    "dunk",
    "floater",
    "hook shot",
    "tip-in",
    "alley-oop",
    "jump shot",
    "fadeaway",
    "pull-up jumper",
)
SHOT_TYPES_3 = ("jump shot", "pull-up jumper", "step-back jumper", "fadeaway")
RIM = ("layup", "dunk", "tip-in", "alley-oop")
PAINT = ("floater", "hook shot")
ZONES_2 = ("restricted area", "paint", "mid-range")
ZONES_3 = ("left corner", "right corner", "left wing", "right wing", "top of the key")
PLAY_TYPES = (
    "pick-and-roll",
    "isolation",
    "post-up",
    "transition",
    "spot-up",
    "hand-off",
    "cut",
    "off-screen",
)
MOVES = (
    "crossover",
    "step back",
    "hesitation",
    "spin move",
    "behind the back",
    "between the legs",
    "shot fake",
)
