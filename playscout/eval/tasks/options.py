"""Options of a multiple-choice question written inside the question text (T5, T8): the
reference finds them with `\\b([A-E])\\s*:` over the upper-cased text, wherever they stand
(on their own lines after a blank line, or inline), and so does this."""

from __future__ import annotations

import re

_MARK = re.compile(r"\b([A-E])\s*:", re.IGNORECASE)
LETTERS = "ABCDE"


def options_in(text: str) -> list[str]:
    """The option texts in letter order: the last run of markers A:, B:, C: ... (a stray "a:"
    earlier in the question does not start the list), each text running to the next marker."""
    marks = list(_MARK.finditer(text))
    starts = [i for i, m in enumerate(marks) if m.group(1).upper() == "A"]
    if not starts:
        return []
    run = [marks[starts[-1]]]
    for m in marks[starts[-1] + 1 :]:
        if len(run) < len(LETTERS) and m.group(1).upper() == LETTERS[len(run)]:
            run.append(m)
    ends = [m.start() for m in run[1:]] + [len(text)]
    return [" ".join(text[m.end() : end].split()) for m, end in zip(run, ends, strict=True)]


def render_letter_options(options: list[str], sep: str = ": ") -> str:
    return "\n".join(f"{LETTERS[i]}{sep}{o}" for i, o in enumerate(options))
