"""Multiple-choice options: written into a generated question (`options_for`,
`render_options`), found in a published question's text (`options_in`), and picked from a
reply (`pick_option`, the generated tasks' rule; `first_letter`, the T5 reference's)."""

from __future__ import annotations

import random
import re

from playscout.eval.judging.text import normalise

LETTERS = "ABCDE"
_MARK = re.compile(r"\b([A-E])\s*:", re.IGNORECASE)


def options_for(
    correct: str, pool: list[str], rng: random.Random, n: int = 5
) -> tuple[list[str], int]:
    """`n` options with the correct one at a random position; distractors from the pool."""
    others = sorted({p for p in pool if p and p != correct})
    rng.shuffle(others)
    opts = [correct, *others[: n - 1]]
    rng.shuffle(opts)
    return opts, opts.index(correct)


def render_options(options: list[str]) -> str:
    return "\n".join(f"{LETTERS[i]}: {o}" for i, o in enumerate(options))


def options_in(text: str) -> list[str]:
    """Options written inside a question's text (T5, T8): the reference finds them with
    `\\b([A-E])\\s*:` over the upper-cased text, wherever they stand (on their own lines after
    a blank line, or inline), and so does this. The option texts in letter order: the last run
    of markers A:, B:, C: ... (a stray "a:" earlier in the question does not start the list),
    each text running to the next marker."""
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


_LETTER = re.compile(r"(?:^|answer(?: is)?[:\s]+|\()\s*([A-E])(?:\)|\.|:|\s|$)", re.I)


def pick_option(answer: str | None, options: list[str]) -> int | None:
    """The chosen option: a leading/explicit letter, else the one option whose text appears in
    the answer (GameplayQA's option extraction, made deterministic). None = no choice."""
    if not answer:
        return None
    m = _LETTER.search(answer.strip())
    if m and LETTERS.index(m.group(1).upper()) < len(options):
        return LETTERS.index(m.group(1).upper())
    text = f" {normalise(answer)} "
    found = [i for i, o in enumerate(options) if f" {normalise(o)} " in text]
    return found[0] if len(found) == 1 else None


def first_letter(answer: str | None, n_options: int) -> int | None:
    """The option picked: the first standalone letter of the upper-cased reply (the rule of
    the T5 reference's evaluate_results), if it names one of the n options."""
    if not 1 <= n_options <= 10:
        return None
    m = re.search(rf"\b([A-{chr(ord('A') + n_options - 1)}])\b", (answer or "").upper())
    return ord(m.group(1)) - ord("A") if m else None
