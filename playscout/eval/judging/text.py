"""Answer normalisation shared by the deterministic judges: case, punctuation, articles,
hyphens, number words and ordinals, so "Twenty-seven" and "27", "1st quarter" and "first
quarter" compare equal but "0" and "not found" never do; and name aliases ("Lakers" and "Los
Angeles Lakers", a unique surname and the full name) mapped to one canonical form."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from playscout.corpus.numbers import ORDINAL_WORDS, TENS, WORD_VALUES

WORD_NUM = WORD_VALUES
_ARTICLES = {"a", "an", "the"}
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_SCORE = re.compile(
    r"\b(\d{1,3})\s*(?:-|–|to|:)\s*(\d{1,3})\b(?!\s*(?:left|remaining|to go|into|elapsed))"
)  # "5:53 left in the 4th quarter" is a game clock, not a score
_NOT_CITIES = frozenset({"new", "san", "los", "las", "st", "saint", "real", "golden", "tampa"})
# the first word of a city a team name shares with others, never an alias on its own
_ORDINAL_SUFFIX = re.compile(r"\b(\d+)(?:st|nd|rd|th)\b", re.I)
NOT_FOUND = re.compile(
    r"\b(not found|cannot find|can't find|could not find|couldn't find|unable to (?:find|determine)"
    r"|no (?:information|answer|evidence)|unknown|not available|cannot be determined)\b",
    re.I,
)


def words_to_digits(text: str) -> str:
    """'twenty-seven' -> '27', 'three' -> '3', 'fourth' and '4th' -> '4'; other words unchanged."""
    text = _ORDINAL_SUFFIX.sub(r"\1", text)
    tokens = re.split(r"(\s+|-)", text.lower())
    out: list[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok in TENS:
            value = TENS[tok]
            nxt = tokens[i + 2] if i + 2 < len(tokens) else ""
            if tokens[i + 1 : i + 2] in (["-"], [" "]) and WORD_NUM.get(nxt, 99) < 10:
                value += WORD_NUM[nxt]
                i += 2
            out.append(str(value))
        elif tok in WORD_NUM:
            out.append(str(WORD_NUM[tok]))
        elif tok in ORDINAL_WORDS:
            out.append(str(ORDINAL_WORDS[tok]))
        else:
            out.append(tok)
        i += 1
    return "".join(out)


def normalise(text: str, keep_hyphens: bool = False) -> str:
    """Lower-case, number words and ordinals as digits, hyphens as spaces (or, with
    `keep_hyphens`, kept inside words so a compound stays one token), punctuation and articles
    dropped."""
    text = words_to_digits(text)
    text = re.sub(r"(?<=\d)[.,](?!\d)", " ", text)  # trailing sentence punctuation after digits
    if keep_hyphens:
        text = re.sub(r"[–_/]", " ", text)
        text = re.sub(r"[^\w\s.-]", " ", text)
        text = re.sub(r"(?<!\w)-+|-+(?!\w)", " ", text)
    else:
        text = re.sub(r"[-–_/]", " ", text)
        text = re.sub(r"[^\w\s.]", " ", text)
    text = re.sub(r"(?<!\d)\.|\.(?!\d)", " ", text)
    return " ".join(t for t in text.split() if t not in _ARTICLES)


def numbers(text: str) -> list[float]:
    return [float(n) for n in _NUMBER.findall(words_to_digits(text).replace(",", ""))]


def score_pair(text: str) -> tuple[int, int] | None:
    m = _SCORE.search(words_to_digits(text))
    return (int(m.group(1)), int(m.group(2))) if m else None


def is_not_found(text: str) -> bool:
    from playscout.agent.answer import is_fallback

    return is_fallback(text) or bool(NOT_FOUND.search(text))


def name_aliases(
    teams: Iterable[str], players: Iterable[str], nicknames: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Normalised alias -> normalised canonical name for one sport: the nickname table (only
    for teams the corpus has), each team's last word ("Lakers") and city ("Boston", "Los
    Angeles") and each player's surname, where that word names exactly one team or player."""
    teams, players = list(teams), list(players)
    known = {normalise(t): t for t in teams}
    out: dict[str, str] = {}
    for alias, canonical in (nicknames or {}).items():
        if not known or normalise(canonical) in known:
            out[normalise(alias)] = normalise(canonical)
    for names, cities in ((teams, True), (players, False)):
        short: dict[str, set[str]] = {}
        for name in names:
            words = normalise(name).split()
            if len(words) > 1:
                short.setdefault(words[-1], set()).add(" ".join(words))
                if cities:  # "Boston" for the Boston Celtics, "Toronto" for the Maple Leafs
                    for city in (words[:-1], words[:-2]):
                        if city and " ".join(city) not in _NOT_CITIES:
                            short.setdefault(" ".join(city), set()).add(" ".join(words))
        out.update({w: next(iter(full)) for w, full in short.items() if len(full) == 1})
    return {a: c for a, c in out.items() if a != c}


def apply_aliases(normalised: str, aliases: Mapping[str, str]) -> str:
    """Whole-word replacement of each alias by its canonical name, longest alias first; a
    canonical name already present is left as it is."""
    text = f" {normalised} "
    for alias in sorted(aliases, key=len, reverse=True):
        canonical = aliases[alias]
        if f" {canonical} " in text:
            continue
        text = text.replace(f" {alias} ", f" {canonical} ")
    return " ".join(text.split())
