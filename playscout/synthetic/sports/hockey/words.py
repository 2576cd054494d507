"""Hockey vocabulary: the NHL's teams and the clip-level words of a shot, a deke and a penalty.

Clip-level values are video-only facts (documents never contain them); captions spell them and
the question generator reads them back, so they are defined once, here.
"""

from __future__ import annotations

TEAMS: tuple[str, ...] = (
    "Anaheim Ducks",
    "Arizona Coyotes",
    "Boston Bruins",
    "Buffalo Sabres",
    "Calgary Flames",
    "Carolina Hurricanes",
    "Chicago Blackhawks",
    "Colorado Avalanche",
    "Columbus Blue Jackets",
    "Dallas Stars",
    "Detroit Red Wings",
    "Edmonton Oilers",
    "Florida Panthers",
    "Los Angeles Kings",
    "Minnesota Wild",
    "Montreal Canadiens",
    "Nashville Predators",
    "New Jersey Devils",
    "New York Islanders",
    "New York Rangers",
    "Ottawa Senators",
    "Philadelphia Flyers",
    "Pittsburgh Penguins",
    "San Jose Sharks",
    "Seattle Kraken",
    "St. Louis Blues",
    "Tampa Bay Lightning",
    "Toronto Maple Leafs",
    "Vancouver Canucks",
    "Vegas Golden Knights",
    "Washington Capitals",
    "Winnipeg Jets",
)

SHOT_TYPES = (
    "wrist shot",
    "slap shot",
    "snap shot",
    "backhand",
    "one-timer",
    "deflection",
    "wraparound",
)
ZONES = ("slot", "high slot", "left circle", "right circle", "point", "crease", "behind the net")
PLAY_TYPES = ("rush", "cycle", "power play", "forecheck", "breakaway", "faceoff play")
MOVES = ("toe drag", "forehand-backhand", "between the legs", "spin-o-rama")
PENALTIES = ("tripping", "hooking", "slashing", "high-sticking", "interference", "roughing")
