"""Scoreboard field text: the recogniser's raw output normalised to what a field can hold
(digits for scores and clocks, letters for team codes), fixing common confusions."""

from __future__ import annotations

import re

_CLEAN = re.compile(r"[^0-9A-Z:]")
# common recogniser confusions in digit-only and letter-only fields
_TO_DIGIT = str.maketrans(
    {"O": "0", "D": "0", "Q": "0", "I": "1", "L": "1", "Z": "2", "S": "5", "B": "8", "G": "6"}
)
_TO_ALPHA = str.maketrans({"0": "O", "1": "I", "5": "S", "8": "B", "2": "Z"})


def clean(text: str) -> str:
    return _CLEAN.sub("", text.upper())


def as_digits(text: str) -> str:
    return clean(text).translate(_TO_DIGIT)


def as_letters(text: str) -> str:
    return clean(text).translate(_TO_ALPHA)
