"""Whole-phrase reading for the deterministic judge: where a gold phrase stands in an answer
(word boundaries, spacing and hyphens ignored: "lay-up", "lay up" and "layup" are one word, but
"half-volley" does not contain "volley"), and what stands around it (a negation, a hedge
between options, "missed" where the question asks about a made shot) that would make a reader
reject the match. Works on normalise()d text; tokens keep their hyphens so compounds stay whole."""

from __future__ import annotations

import re
from collections.abc import Iterable

# standard words of the three sports a careful reader treats as the same answer; each side is
# rewritten to the right-hand form before comparing (normalised, whole words only)
SYNONYMS: dict[str, str] = {
    "jumper": "jump shot",
    "jumpshot": "jump shot",
    "iso": "isolation",
    "fast break": "transition",
    "lane": "paint",
    "screen and roll": "pick and roll",
    "through legs": "between legs",
    "backhander": "backhand",
    "wrister": "wrist shot",
    "slapper": "slap shot",
    "slapshot": "slap shot",
    "man advantage": "power play",
    "give and go": "one two",
    "wall pass": "one two",
}
# counts written as words a number table does not hold
COUNT_WORDS: dict[str, int] = {"once": 1, "twice": 2, "thrice": 3, "hat trick": 3}

NEGATORS = frozenset({"not", "no", "never", "t", "nor", "neither", "instead", "rather", "than"})
HEDGE_AROUND = frozenset({"or", "either"})
HEDGES = frozenset(
    {"maybe", "perhaps", "possibly", "probably", "likely", "unclear", "unsure", "might", "guess"}
)
MADE = frozenset({"made", "make", "makes", "hit", "hits", "converted", "scored", "goal"})
MISSED = frozenset({"missed", "miss", "misses", "blocked", "airball"})
# pairs a reader reads as opposite values of one attribute
OPPOSITES: dict[str, str] = {
    "left": "right",
    "right": "left",
    "inside": "outside",
    "outside": "inside",
    "home": "away",
    "away": "home",
    "forehand": "backhand",
    "backhand": "forehand",
    "made": "missed",
    "missed": "made",
    "offensive": "defensive",
    "defensive": "offensive",
    "high": "low",
    "low": "high",
}
WINDOW = 4  # tokens either side of a match a negation or hedge must fall within


def units(normalised_hyphens: str) -> list[str]:
    """Whitespace tokens with hyphens kept ("half-volley" stays one token)."""
    return normalised_hyphens.split()


def _key(tok: str) -> str:
    # "between-the-legs" spells "between legs": articles inside a compound drop as outside it
    return "".join(w for w in tok.split("-") if w not in ("a", "an", "the"))


def find_phrase(hay: list[str], needle: list[str]) -> list[tuple[int, int]]:
    """Every token span [i, j) of `hay` whose tokens, hyphens and spaces dropped, spell the
    needle: "wrap around" and "wrap-around" match "wraparound"; spans start and end on token
    boundaries, so "half-volley" never matches "volley"."""
    target = "".join(_key(t) for t in needle)
    if not target:
        return []
    spans = []
    for i in range(len(hay)):
        acc = ""
        for j in range(i, len(hay)):
            acc += _key(hay[j])
            if acc == target:
                spans.append((i, j + 1))
                break
            if not target.startswith(acc):
                break
    return spans


def canonical_terms(normalised: str) -> str:
    """Rewrite whole-word synonyms to their canonical form; a space in a synonym also matches
    a hyphen ("fast-break")."""
    for alias in sorted(SYNONYMS, key=len, reverse=True):
        pattern = r"(?<![\w-])" + re.escape(alias).replace(r"\ ", "[ -]") + r"(?![\w-])"
        normalised = re.sub(pattern, SYNONYMS[alias], normalised)
    return normalised


def negated(tokens: list[str], span: tuple[int, int]) -> bool:
    """A negator in the few tokens before the match ("not a layup", "wasn't a layup"); "no"
    only right before it ("no layup"), as "No, it was a layup" answers another question."""
    i, _ = span
    before = tokens[max(0, i - WINDOW) : i]
    return any(t in NEGATORS - {"no"} for t in before) or tokens[i - 1 : i] == ["no"]


def hedged(tokens: list[str], span: tuple[int, int]) -> bool:
    """The match offered as one of several options ("layup or dunk", "either a X or a Y")."""
    i, j = span
    near = tokens[max(0, i - WINDOW) : i] + tokens[j : j + WINDOW]
    return any(t in HEDGE_AROUND for t in near)


def polarity_flipped(context: Iterable[str], tokens: list[str], span: tuple[int, int]) -> bool:
    """The question or gold is about a made shot and the answer says missed near the match
    (or the other way round)."""
    ctx = set(context)
    i, j = span
    near = set(tokens[max(0, i - WINDOW) : j + WINDOW])
    if ctx & MADE and not ctx & MISSED:
        return bool(near & MISSED)
    if ctx & MISSED and not ctx & MADE:
        return bool(near & MADE)
    return False


def opposite_swap(gold: list[str], pred: list[str]) -> bool:
    """The answer keeps the gold's words but one of them turned into its opposite ("right
    corner" for "left corner")."""
    g, p = set(gold), set(pred)
    return any(OPPOSITES.get(w) in p and w not in p for w in g if w in OPPOSITES)


_TITLE_RUN = re.compile(r"\b[A-Z][a-z'.]+(?:\s+[A-Z][a-z'.]+)+")
_LEADING = frozenset({"in", "the", "it", "he", "she", "they", "according", "after", "based", "on"})


def full_names(raw: str) -> list[str]:
    """Runs of two or more capitalised words ("Malik Vasquez", "Boston Celtics") as lower-case
    strings, sentence-opening words dropped."""
    out = []
    for m in _TITLE_RUN.finditer(raw):
        words = [w.strip(".'").lower() for w in m.group(0).split()]
        while words and words[0] in _LEADING:
            words = words[1:]
        if len(words) >= 2:
            out.append(" ".join(words))
    return out


def looks_like_name(raw: str) -> bool:
    words = raw.split()
    return len(words) >= 2 and all(w[:1].isupper() for w in words)


_ACRONYM = re.compile(r"^[A-Z&]{2,4}\.?$")


def abbreviated(raw: str, gold_words: Iterable[str], pred_words: Iterable[str]) -> bool:
    """An acronym ("P&R", "PP") or an inflected gold word ("nutmegged" for "nutmeg"): the
    answer may well be the gold in another form, which only a reader can confirm."""
    if any(_ACRONYM.match(w) for w in raw.split()):
        return True
    return any(
        len(a) >= 4 and b != a and b.startswith(a)
        for g in gold_words
        for w in pred_words
        for a, b in ((g, w), (w, g))
    )
