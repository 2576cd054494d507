"""The offline reader's table step (tools/readers.py). Ranking sentences cannot answer "who led
the Hornets in scoring?" from a box score: every row matches the team equally, and the answer
is the row with the most points under the Hornets' section. So a box score (corpus/boxscore.py)
answers a leader question with its top row for the stat asked, and a question that names rows
("how many rebounds did Jack Ashford have?", "final score") with those rows. Still extractive:
the answer is rows as written, under their section headers, picked by a rule the evidence
names; nothing is computed or reworded."""

from __future__ import annotations

import re
from dataclasses import dataclass

from playscout.corpus.boxscore import StatRow, section_team, stat_rows

LEAD_WORDS = frozenset({"led", "lead", "leading", "leader", "leaders", "most", "top", "highest"})
# What a question calls a stat -> the labels it may mean, in order; the first one the table has.
STAT_WORDS: dict[str, tuple[str, ...]] = {
    "scoring": ("points", "goals"),
    "scorer": ("points", "goals"),
    "scorers": ("points", "goals"),
    "rebounding": ("rebounds",),
    "passing": ("passes", "assists"),
    "tackling": ("tackles",),
}
_WORD = re.compile(r"[a-z0-9+/]+")
_TEAM_NOISE = frozenset({"the", "of", "fc", "and"})
OPPONENT = re.compile(r"\b(?:against|versus|vs\.?|facing)\b", re.I)  # "... against X"


@dataclass(frozen=True)
class TableAnswer:
    rows: list[StatRow]
    rule: str  # which rule picked the rows, said in the evidence


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def _has(query: set[str], phrase: str) -> bool:
    """Every word of `phrase` in the query, singular or plural."""
    words = {_stem(w) for w in _words(phrase)}
    return bool(words) and words <= query


def asked_stat(query: str, labels: set[str]) -> str | None:
    """The count label the question asks about: one it names (the longest), else one of its
    stat words ('scoring' -> points or goals) that the table has."""
    stems = {_stem(w) for w in _words(query)}
    named = sorted((lab for lab in labels if _has(stems, lab)), key=lambda s: (-len(s), s))
    if named:
        return named[0]
    for word in _words(query):
        for label in STAT_WORDS.get(word, ()):
            if label in labels:
                return label
    return None


def named_sections(query: str, sections: list[str]) -> list[str]:
    """The sections whose team the question names by a word no other section's team has
    ('United' for Manchester United, not 'Manchester'; 'Hornets' or 'Charlotte' for Charlotte
    Hornets); not the team it plays against ('... against the Celtics'); every section when it
    names none."""
    words = {s: {w for w in _words(section_team(s)) if w not in _TEAM_NOISE} for s in sections}
    own = {s: words[s] - set().union(*(words[o] for o in sections if o != s)) for s in sections}
    subject = OPPONENT.split(query, maxsplit=1)[0]
    for asked in (set(_words(subject)), set(_words(query))):
        named = [s for s in sections if own[s] & asked or (words[s] and words[s] <= asked)]
        if named:
            return named
    return list(sections)


def table_answer(text: str, query: str) -> TableAnswer | None:
    """The rows of a box score the question asks for, or None (not a table, or a question the
    rows do not answer by rule: the sentence ranking answers it instead)."""
    rows = stat_rows(text)
    if not rows:
        return None
    sections = list(dict.fromkeys(r.section for r in rows))
    chosen = [r for r in rows if r.section in named_sections(query, sections)]
    words = set(_words(query))
    stems = {_stem(w) for w in words}
    stat = asked_stat(query, {k for r in rows for k in r.counts})
    if stat is not None and words & LEAD_WORDS:
        counted = [r for r in chosen if stat in r.counts]
        if counted:
            top = max(r.counts[stat] for r in counted)
            leaders = [r for r in counted if r.counts[stat] == top]
            where = ", ".join(dict.fromkeys(r.section for r in counted))
            tie = f" ({len(leaders)} tied)" if len(leaders) > 1 else ""
            return TableAnswer(
                leaders, f"the most {stat} of {len(counted)} rows under {where}{tie}"
            )
    named = [r for r in chosen if _has(stems, r.name)] or [r for r in rows if _has(stems, r.name)]
    if named:
        return TableAnswer(
            named, f"the rows the question names: {', '.join(r.name for r in named)}"
        )
    return None


def render_rows(rows: list[StatRow]) -> str:
    """The rows under their section headers, as the document has them (stat_rows reads it)."""
    lines: list[str] = []
    section = None
    for row in rows:
        if row.section != section:
            lines.append(f"### {row.section}")
            section = row.section
        lines.append(row.line)
    return "\n".join(lines)
