"""Per-sport constants: league shape, paper targets (Table 37), team names and vocabulary.

Kept as plain data so the simulators, the documents and the question generator share one
vocabulary (a question's answer value must be spelled exactly as the caption spells it).
"""

from __future__ import annotations

from dataclasses import dataclass

PAPER_GAMES: dict[str, int] = {"basketball": 3307, "hockey": 2482, "soccer": 1641}


@dataclass(frozen=True)
class SportSpec:
    """League shape and calibration targets of one sport."""

    name: str
    seasons: tuple[int, ...]  # season end years, oldest first
    period_seconds: int
    periods: int
    ot_seconds: int
    period_word: str
    countdown: bool
    positions: tuple[str, ...]
    roster_size: int  # players per team-season
    turnover: float  # share of a roster replaced by new players each season
    game_id_base: int
    team_id_base: int
    player_id_base: int
    clip_mean: float  # mean clip duration (s), in [10, 15]
    keep_window: float  # share of covered windows kept (missing footage)
    clip_game_share: float  # share of games with video
    report_share: float  # share of games with an ESPN recap
    season_start: tuple[int, int]  # (month, day) in the start year
    season_days: int


SPECS: dict[str, SportSpec] = {
    "basketball": SportSpec(
        "basketball",
        (2019, 2020, 2021, 2022, 2023),
        720,
        4,
        300,
        "quarter",
        True,
        ("PG", "SG", "SF", "PF", "C"),
        19,
        0.19,
        400000,
        1,
        10000,
        10.9,
        0.863,
        1.0,
        1.0,
        (10, 22),
        170,
    ),
    "hockey": SportSpec(
        "hockey",
        (2020, 2021, 2022, 2023),
        1200,
        3,
        300,
        "period",
        True,
        ("C", "LW", "RW", "D", "G"),
        34,
        0.175,
        500000,
        101,
        30000,
        12.1,
        0.85,
        1.0,
        1.0,
        (10, 10),
        180,
    ),
    "soccer": SportSpec(
        "soccer",
        (2020, 2021, 2022, 2023),
        2700,
        2,
        0,
        "half",
        False,
        ("GK", "DF", "MF", "FW"),
        32,
        0.21,
        6000000,
        201,
        60000,
        12.9,
        0.875,
        0.3,
        1070 / 1641,
        (8, 12),
        280,
    ),
}

NBA_TEAMS: tuple[str, ...] = (
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
NHL_TEAMS: tuple[str, ...] = (
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

FIRST_NAMES: tuple[str, ...] = (
    "Aaron",
    "Adrian",
    "Alex",
    "Andre",
    "Anthony",
    "Ben",
    "Blake",
    "Brandon",
    "Caleb",
    "Cameron",
    "Carlos",
    "Chris",
    "Cole",
    "Connor",
    "Damian",
    "Daniel",
    "Darius",
    "David",
    "Derek",
    "Diego",
    "Dominic",
    "Dylan",
    "Eli",
    "Emil",
    "Eric",
    "Evan",
    "Felix",
    "Gabriel",
    "Grant",
    "Hugo",
    "Isaac",
    "Ivan",
    "Jack",
    "Jalen",
    "James",
    "Jamal",
    "Jason",
    "Jonas",
    "Jordan",
    "Julian",
    "Kai",
    "Keith",
    "Kevin",
    "Kyle",
    "Lars",
    "Leo",
    "Liam",
    "Lucas",
    "Luka",
    "Malik",
    "Marco",
    "Marcus",
    "Mason",
    "Mateo",
    "Max",
    "Miles",
    "Nathan",
    "Nico",
    "Noah",
    "Oliver",
    "Omar",
    "Oscar",
    "Owen",
    "Pablo",
    "Patrick",
    "Paul",
    "Pierre",
    "Quentin",
    "Rafael",
    "Reggie",
    "Ryan",
    "Samuel",
    "Sean",
    "Simon",
    "Stefan",
    "Terrence",
    "Theo",
    "Tobias",
    "Tyler",
    "Victor",
    "Viktor",
    "Wesley",
    "Xavier",
    "Yannick",
    "Zach",
)
LAST_NAMES: tuple[str, ...] = (
    "Abbott",
    "Alvarez",
    "Andersen",
    "Baker",
    "Barnes",
    "Bauer",
    "Bennett",
    "Brooks",
    "Caldwell",
    "Castillo",
    "Chambers",
    "Coleman",
    "Cruz",
    "Dalton",
    "Dawson",
    "Delgado",
    "Dixon",
    "Dubois",
    "Ellis",
    "Eriksson",
    "Fischer",
    "Fleming",
    "Foster",
    "Garner",
    "Gibson",
    "Greer",
    "Hale",
    "Hansen",
    "Harmon",
    "Hayes",
    "Holt",
    "Ibarra",
    "Jansen",
    "Jennings",
    "Keller",
    "Kowalski",
    "Lambert",
    "Larsen",
    "Lindqvist",
    "Lowry",
    "Maddox",
    "Marsh",
    "Mendoza",
    "Moreau",
    "Nash",
    "Novak",
    "Okafor",
    "Olsen",
    "Ortega",
    "Parrish",
    "Pereira",
    "Petrov",
    "Quinn",
    "Ramos",
    "Reyes",
    "Rhodes",
    "Romero",
    "Sandoval",
    "Schmidt",
    "Shaw",
    "Silva",
    "Sorensen",
    "Stone",
    "Sullivan",
    "Tanner",
    "Torres",
    "Underwood",
    "Vance",
    "Varga",
    "Vasquez",
    "Walsh",
    "Warner",
    "Weber",
    "Whitfield",
    "Wolff",
    "Yates",
    "Young",
    "Zeller",
    "Zimmerman",
    "Ashford",
    "Bishop",
    "Crane",
    "Drummond",
    "Everett",
    "Fontaine",
    "Gallagher",
    "Hargrove",
)

ORDINALS: tuple[str, ...] = (
    "zeroth",
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "11th",
    "12th",
    "13th",
    "14th",
    "15th",
    "16th",
    "17th",
    "18th",
    "19th",
    "20th",
)
NUMBER_WORDS: tuple[str, ...] = (
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
)


def ordinal_word(n: int) -> str:
    return ORDINALS[n] if 0 <= n < len(ORDINALS) else f"{n}th"


def period_label(sport: str, period: int) -> str:
    """'4th quarter', 'OT', '2nd period', '1st half' - the caption's period wording."""
    spec = SPECS[sport]
    if period > spec.periods:
        n = period - spec.periods
        return "overtime" if n == 1 else f"{n}OT"
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(period, "th")
    return f"{period}{suffix} {spec.period_word}"


# ---------------------------------------------------------------- clip-level vocabulary
# These values are video-only facts: documents never contain them.

BB_SHOT_TYPES_2 = (
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
BB_SHOT_TYPES_3 = ("jump shot", "pull-up jumper", "step-back jumper", "fadeaway")
BB_RIM = ("layup", "dunk", "tip-in", "alley-oop")
BB_PAINT = ("floater", "hook shot")
BB_ZONES_2 = ("restricted area", "paint", "mid-range")
BB_ZONES_3 = ("left corner", "right corner", "left wing", "right wing", "top of the key")
BB_PLAY_TYPES = (
    "pick-and-roll",
    "isolation",
    "post-up",
    "transition",
    "spot-up",
    "hand-off",
    "cut",
    "off-screen",
)
BB_MOVES = (
    "crossover",
    "step back",
    "hesitation",
    "spin move",
    "behind the back",
    "between the legs",
    "shot fake",
)

HK_SHOT_TYPES = (
    "wrist shot",
    "slap shot",
    "snap shot",
    "backhand",
    "one-timer",
    "deflection",
    "wraparound",
)
HK_ZONES = ("slot", "high slot", "left circle", "right circle", "point", "crease", "behind the net")
HK_PLAY_TYPES = ("rush", "cycle", "power play", "forecheck", "breakaway", "faceoff play")
HK_MOVES = ("toe drag", "forehand-backhand", "between the legs", "spin-o-rama")
HK_PENALTIES = ("tripping", "hooking", "slashing", "high-sticking", "interference", "roughing")

SC_BODY_PARTS = ("right foot", "left foot", "header")
SC_SHOT_TYPES = (
    "volley",
    "half-volley",
    "chip",
    "curler",
    "placed finish",
    "tap-in",
    "long-range strike",
    "penalty kick",
)
SC_POSITIONS = (
    "six-yard box",
    "penalty spot",
    "edge of the box",
    "left side of the box",
    "right side of the box",
    "outside the box",
)
SC_PLAY_TYPES = (
    "through ball",
    "cross",
    "cutback",
    "long ball",
    "one-two",
    "counter-attack",
    "corner kick",
    "free kick",
)
SC_MOVES = ("step-over", "nutmeg", "Cruyff turn", "drag-back", "body feint")

# Answer-type -> event attribute key, per sport (used by the question generator).
MOVE_KEY = {"basketball": "dribble_move", "hockey": "deke", "soccer": "skill_move"}
ZONE_KEY = {"basketball": "zone", "hockey": "zone", "soccer": "position"}


def plural(n: int, word: str) -> str:
    return f"{n} {word if n == 1 else word + 's'}"


def article(word: str) -> str:
    """'an 11-0 run', 'an 8-0 run', 'a 12-0 run'."""
    return "an" if word[:1] in "aeio8" or word.startswith(("11", "18")) else "a"


# ---------------------------------------------------------------- team references
# How a recap or a question may refer to a team after (or instead of) its full name. Every
# short form resolves to exactly one team of its sport in playscout/tools/entities.py (as a
# whole-word name part or through playscout/tools/aliases.py); tests check that.

_MULTI_WORD_CITIES: tuple[str, ...] = (
    "Golden State",
    "Los Angeles",
    "New Jersey",
    "New Orleans",
    "New York",
    "Oklahoma City",
    "San Antonio",
    "San Jose",
    "St. Louis",
    "Tampa Bay",
)
SOCCER_SHORT: dict[str, tuple[str, ...]] = {
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


@dataclass(frozen=True)
class TeamRef:
    """One way of naming a team: 'Boston Celtics' / 'Celtics' take 'the', 'Boston' does not."""

    text: str
    the: bool

    def render(self, capital: bool = False) -> str:
        if not self.the:
            return self.text
        return ("The " if capital else "the ") + self.text


def _split_city(name: str) -> tuple[str, str]:
    for city in _MULTI_WORD_CITIES:
        if name.startswith(city + " "):
            return city, name[len(city) + 1 :]
    city, _, nick = name.partition(" ")
    return city, nick


def _pool(sport: str) -> tuple[str, ...]:
    if sport == "basketball":
        return NBA_TEAMS
    if sport == "hockey":
        return NHL_TEAMS
    return EPL_TEAMS + LALIGA_TEAMS


def full_ref(sport: str, name: str) -> TeamRef:
    """The full name: North American franchises take an article, clubs do not."""
    return TeamRef(name, sport != "soccer")


def short_refs(sport: str, name: str) -> tuple[TeamRef, ...]:
    """Nickname first ('Celtics', 'Spurs'), then the city where it names one team only."""
    if sport == "soccer":
        return tuple(TeamRef(s, False) for s in SOCCER_SHORT.get(name, ()))
    city, nick = _split_city(name)
    out = [TeamRef(nick, True)]
    if sum(1 for t in _pool(sport) if _split_city(t)[0] == city) == 1:
        out.append(TeamRef(city, False))
    return tuple(out)


def team_refs(sport: str, name: str) -> tuple[TeamRef, ...]:
    """Every form a document or question may use for the team, full name first."""
    return (full_ref(sport, name), *short_refs(sport, name))
