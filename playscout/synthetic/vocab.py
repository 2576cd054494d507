"""Shared vocabulary: player names, ordinals, number words, articles and team references.

Kept as plain data so the simulators, the documents and the question generator share one
vocabulary (a question's answer value must be spelled exactly as the caption spells it). What is
particular to one sport (its teams, its clip-level words) lives in that sport's package under
playscout/synthetic/sports/.
"""

from __future__ import annotations

from dataclasses import dataclass

from playscout.corpus.numbers import UNITS

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
NUMBER_WORDS: tuple[str, ...] = UNITS[:11]  # "zero" .. "ten"


def ordinal_word(n: int) -> str:
    return ORDINALS[n] if 0 <= n < len(ORDINALS) else f"{n}th"


def plural(n: int, word: str) -> str:
    return f"{n} {word if n == 1 else word + 's'}"


def article(word: str) -> str:
    """'an 11-0 run', 'an 8-0 run', 'a 12-0 run'."""
    return "an" if word[:1] in "aeio8" or word.startswith(("11", "18")) else "a"


# ---------------------------------------------------------------- team references
# How a recap or a question may refer to a franchise after (or instead of) its full name. Every
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


@dataclass(frozen=True)
class TeamRef:
    """One way of naming a team: 'Boston Celtics' / 'Celtics' take 'the', 'Boston' does not."""

    text: str
    the: bool

    def render(self, capital: bool = False) -> str:
        if not self.the:
            return self.text
        return ("The " if capital else "the ") + self.text


def split_city(name: str) -> tuple[str, str]:
    """A franchise name's city and nickname: ('Golden State', 'Warriors')."""
    for city in _MULTI_WORD_CITIES:
        if name.startswith(city + " "):
            return city, name[len(city) + 1 :]
    city, _, nick = name.partition(" ")
    return city, nick
