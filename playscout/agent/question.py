"""What counts as a question: text with at least one character a person can see. A question
of zero-width spaces, NUL bytes or direction marks looks empty everywhere it is shown (the
run browser, a log line), yet ran as a normal ask, spending a full agent budget on nothing;
it is refused as an empty one is (HTTP 422, CLI exit 2)."""

from __future__ import annotations

import unicodedata

from playscout.errors import PlayscoutError

# Control, format (zero-width, direction marks, BOM), surrogates, unassigned, separators, and
# combining marks, which draw nothing without a base character.
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Cn", "Zs", "Zl", "Zp", "Mn", "Me"})
# Letters and symbols that render as blank space.
_BLANK_CHARACTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")

NO_VISIBLE_TEXT = "has no visible characters (only spaces, control or zero-width characters)"


def has_visible_text(text: str) -> bool:
    return any(
        c not in _BLANK_CHARACTERS and unicodedata.category(c) not in _INVISIBLE_CATEGORIES
        for c in text
    )


class BlankQuestion(PlayscoutError, ValueError):
    """A ValueError too, so that a pydantic validator turns it into a 422."""


def visible_question(text: str) -> str:
    """`text`, or BlankQuestion when nothing in it is visible."""
    if not has_visible_text(text):
        raise BlankQuestion(f"the question {NO_VISIBLE_TEXT}")
    return text
