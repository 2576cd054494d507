"""What the workflow baseline takes from a reader's answer (tools/readers.py: a sentence, or
box-score rows under their headers): the short answer its question asks for, and how much of a
game-identifying fact a passage supports. By rule, no model; where no rule applies the passage
itself is the answer."""

from __future__ import annotations

import re

from playscout.agent.policies.route import Route, names_in
from playscout.corpus.boxscore import finals, stat_rows
from playscout.tools.readers import terms
from playscout.tools.table_reader import OPPONENT, asked_stat

_NUMBER = re.compile(r"(?<![\w.])(\d+(?:[.-]\d+)*)(?:[\s-]+([a-z]+))?")
_PAIR = re.compile(r"(?<![\d:.])(\d{1,3})-(\d{1,3})(?![\d:])")
_NUMBER_WEIGHT = 2.0  # a fact's numbers tell its game apart; its words mostly do not
_RECORD = re.compile(r"\bto (\d+-\d+(?:-\d+)?)\b")  # "improved to 2-1", "fell to 0-3-1"
_CLAUSES = re.compile(r",\s*(?:while|and|but)\s+|;\s*|(?<=[.!?])\s+|\s+\|\s+")


def support(fact: str, passage: str) -> float:
    """Share of a fact found in a passage: its content words, and its numbers with the word
    after them ("8 assists", "41-point"), numbers weighing double."""
    text = passage.lower()
    words = set(re.findall(r"[a-z0-9]+", text))
    wanted = [t for t in terms(fact) if not t[0].isdigit()]
    got = sum(1.0 for t in wanted if t in words or t.rstrip("s") in words)
    total = float(len(wanted))
    for num, after in _NUMBER.findall(fact.lower()):
        pattern = rf"(?<![\w.]){re.escape(num)}(?![\d.-])"
        if after:
            pattern += rf"[\s-]+{re.escape(after)}"
        got += _NUMBER_WEIGHT * bool(re.search(pattern, text))
        total += _NUMBER_WEIGHT
    return got / total if total else 0.0


def _other_name(route: Route, passage: str, teams: set[str]) -> str | None:
    """The first person the passage names that the question does not (who assisted, who led)."""
    asked = {n.lower() for n in names_in(route.tail)}
    for name in names_in(passage, question=False):
        if name.lower() not in asked and name not in teams:
            return name
    return None


def _record(route: Route, texts: list[str], teams: set[str]) -> str | None:
    """The record the reading gives the team the question asks about ("the Hawks improved to
    1-0, while the Nets fell to 0-1": 1-0 for the Hawks), named as the question or the
    documents name it ('Buffalo' is the Buffalo Sabres, so 'the Sabres' too)."""
    subject = re.sub(r"['’]s\b", "", OPPONENT.split(route.tail, maxsplit=1)[0])
    asked = {t for t in terms(subject) if not t[0].isdigit()} - {"record", "after"}
    for team in teams:
        if asked & set(terms(team)):
            asked |= set(terms(team))
    for text in texts:
        for clause in _CLAUSES.split(text):
            m = _RECORD.search(clause)
            if m and asked & set(terms(clause)):
                return m.group(1)
    return None


def short_answer(route: Route, passage: str, teams: set[str], evidence: str = "") -> str:
    """The part of a reader's answer the question asks for: a leader's name, a count, a final
    score, a winner, a team's record, the name a "who" question wants; else the passage.
    `evidence`: the reader's other best passages, where the part may be instead."""
    rows = stat_rows(passage)
    if route.ask == "leader" and rows:
        names = [r.name for r in rows]
        return names[0] if len(names) == 1 else " and ".join(names) + " (tied)"
    if route.ask == "stat" and rows:
        stat = asked_stat(route.tail, set(rows[0].counts))
        if stat is not None:
            return f"{rows[0].counts[stat]} {stat}"
    final = finals(rows)
    if route.ask in ("score", "winner") and len(final) == 2:
        (home, h), (away, a) = final
        if route.ask == "score":
            return f"{home} {h}-{a} {away}"
        return home if h > a else away if a > h else f"neither: a draw, {h}-{a}"
    if route.ask == "record" and (record := _record(route, [passage, evidence], teams)):
        return record
    if route.ask == "score" and (pair := _PAIR.search(passage)):
        return f"{pair.group(1)}-{pair.group(2)}"
    if route.tail.lower().startswith("who") or route.ask == "leader":
        name = _other_name(route, passage, teams)
        if name is not None:
            return name
    return passage.strip()
