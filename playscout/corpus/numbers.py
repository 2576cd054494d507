"""Numbers as English words, in one place: the simulator writes them into captions, reports and
commentary, and the deterministic judge reads them back ("Twenty-seven" equals "27")."""

from __future__ import annotations

UNITS: tuple[str, ...] = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen",
)  # fmt: skip
TENS: dict[str, int] = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
WORD_VALUES: dict[str, int] = {w: i for i, w in enumerate(UNITS)} | TENS


def number_word(n: int) -> str:
    """0-20 as a word ("zero" ... "twenty"); anything else as digits."""
    if 0 <= n < len(UNITS):
        return UNITS[n]
    return "twenty" if n == 20 else str(n)


ORDINAL_WORDS: dict[str, int] = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19, "twentieth": 20,
}  # fmt: skip
"""Ordinals as words, for the judge ("fourth quarter" equals "4th quarter")."""
