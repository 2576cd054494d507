"""Answer normalisation shared by the deterministic judges: case, punctuation, articles,
hyphens and number words, so "Twenty-seven" and "27" compare equal but "0" and "not found"
never do."""

from __future__ import annotations

import re

from playscout.corpus.numbers import TENS, WORD_VALUES

WORD_NUM = WORD_VALUES
_ARTICLES = {"a", "an", "the"}
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_SCORE = re.compile(r"\b(\d{1,3})\s*(?:-|–|to|:)\s*(\d{1,3})\b")
NOT_FOUND = re.compile(
    r"\b(not found|cannot find|can't find|could not find|couldn't find|unable to (?:find|determine)"
    r"|no (?:information|answer|evidence)|unknown|not available|cannot be determined)\b",
    re.I,
)


def words_to_digits(text: str) -> str:
    """'twenty-seven' -> '27', 'three' -> '3'; other words unchanged."""
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
        else:
            out.append(tok)
        i += 1
    return "".join(out)


def normalise(text: str) -> str:
    """Lower-case, number words as digits, hyphens as spaces, punctuation and articles dropped."""
    text = words_to_digits(text)
    text = re.sub(r"(?<=\d)[.,](?!\d)", " ", text)  # trailing sentence punctuation after digits
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
