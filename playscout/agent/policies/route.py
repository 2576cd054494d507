"""What a question asks for, read by rule (the workflow baseline's first step; no model).

Documents hold game-level facts: scores, winners, leaders, records, box-score counts. Clips
hold plays, moments and visual detail: shot and play types, where on the field, moves, who
assisted, jersey numbers, the score right after an event, counts within a period. A T9-style
question ("In the game where <facts>, <what happened on a play>?") names its game through
document facts and asks about a play: it needs both, the documents to find the game and the
clips to answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

Need = Literal["documents", "clips"]
Ask = Literal["leader", "stat", "score", "winner", "record", "fact", "play"]

_ORD = (
    r"(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|final"
    r"|\d+(?:st|nd|rd|th))"
)
_PERIOD = r"(?:quarter|period|half|inning|overtime)"
_STATS = (
    r"(?:points|rebounds|assists|steals|blocks|turnovers|fouls|goals|saves|shots|passes"
    r"|tackles|hits|minutes|PIM|faceoffs|cards)"
)
_CLIP_CUES = tuple(
    re.compile(p, re.I)
    for p in (
        r"\bwhat (?:type|kind|sort) of\b",
        r"\bwhat (?:\w+ )?(?:area|spot|zone|side|part)\b|\bfrom (?:what|which|where)\b",
        r"\bwhere (?:on|did|was|were)\b",
        r"\b(?:dribble move|deke|move|feint|skill)\b",
        r"\bassist(?:ed)? (?:on|by)\b|\bwho (?:assisted|passed|set up|fed)\b",
        r"\b(?:jersey|shirt|sweater|uniform|wearing)\b|\bwhat number\b",
        r"\b(?:right|just|immediately) (?:after|before)\b",
        rf"'s {_ORD} [\w -]{{1,40}}? of the (?:{_ORD} )?{_PERIOD}\b",
        r"\b(?:describe|show me|what happened|highlight|replay|look like|celebrat\w*|clip"
        r"|video|footage|camera|angle)\b",
        rf"\bhow many\b.*\b(?:from the|in the {_ORD} {_PERIOD})\b",
        r"\bhow did\b(?!.*\b(?:end|finish)\b)",
    )
)
_DOC_CUE_PATTERNS: tuple[tuple[Ask, str], ...] = (
    ("leader", r"\b(?:led|lead|leading|leader|top scorer|most|highest)\b"),
    ("winner", r"\b(?:who|which team|which side|what team) (?:won|lost|beat|win)\b"),
    ("winner", r"\b(?:winner|loser)\b|\bdid (?:the )?[\w .'-]{1,40}? (?:win|lose)\b"),
    ("stat", rf"\bhow many (?:\w+ ){{0,2}}{_STATS}\b"),
    (
        "score",
        r"\b(?:final )?score\b|\bby how (?:much|many)\b|\bmargin\b|\bfinal\b"
        r"|\bhow did\b.*\b(?:end|finish)\b",
    ),
    ("record", r"\brecord\b|\bstreak\b|\bstraight (?:win|loss|game)"),
    (
        "fact",
        r"\b(?:box score|stat line|stats|statistics|season average|per game|shooting"
        r"|percentage|played without|run in the)\b",
    ),
)
_DOC_CUES = tuple((ask, re.compile(p, re.I)) for ask, p in _DOC_CUE_PATTERNS)
_FRAMED = re.compile(r"^\s*in the (?:game|match) (?:where|in which|when)\s+(.+)$", re.I | re.S)
_TAIL = re.compile(
    r",\s+((?:what|which|who|whom|how|from|where|when|did|was|were|is|in what)\b.*)$",
    re.I | re.S,
)
_FACT_SPLIT = re.compile(r"\s+and\s+(?=(?:the\s+)?[A-Z])")
_DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")
_PERIOD_NO = re.compile(rf"\b(?:in|of|during) the (\d+)(?:st|nd|rd|th) {_PERIOD}\b", re.I)
_PERIOD_WORD = re.compile(rf"\b(?:in|of|during) the (first|second|third|fourth) {_PERIOD}\b", re.I)
_PERIOD_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4}
_NAME = re.compile(r"\b([A-Z][a-z'’.-]+(?: [A-Z][a-z'’.-]+)+)\b")
_CLAUSES = re.compile(
    r"\?\s+|;\s*|,?\s+and\s+(?=(?:what|which|who|how|where|when|did|was|were)\b)", re.I
)


@dataclass(frozen=True)
class Route:
    """`needs`: the evidence the answer comes from, in the order to read it; `open`: no cue
    said which, so clips are read only when the documents hold nothing. `facts`: the document
    facts that name the game (a framed question), checked by reading documents. `ask`: what the
    answer is (a play, or a kind of document fact). `tail`: the part that asks. `date`,
    `period`, `names`: what the question itself narrows the search to."""

    needs: tuple[Need, ...]
    ask: Ask
    tail: str
    facts: tuple[str, ...] = ()
    open: bool = False
    date: str | None = None
    period: int | None = None
    names: tuple[str, ...] = ()
    why: str = ""

    @property
    def documents(self) -> bool:
        return "documents" in self.needs

    @property
    def clips(self) -> bool:
        return "clips" in self.needs


def split_framed(question: str) -> tuple[tuple[str, ...], str]:
    """('In the game where A and B, what ...?') -> ((A, B), 'what ...?'); else ((), question)."""
    framed = _FRAMED.match(question)
    if not framed:
        return (), question.strip()
    body = framed.group(1)
    tail = _TAIL.search(body)
    if not tail:
        return (), question.strip()
    facts = body[: tail.start()].strip().rstrip(",")
    parts = tuple(f.strip(" ,") for f in _FACT_SPLIT.split(facts) if f.strip(" ,"))
    return parts, tail.group(1).strip()


def clip_cue(text: str) -> str | None:
    return next((m.group(0) for p in _CLIP_CUES if (m := p.search(text))), None)


def document_cue(text: str) -> tuple[Ask, str] | None:
    return next(((ask, m.group(0)) for ask, p in _DOC_CUES if (m := p.search(text))), None)


def period_of(text: str) -> int | None:
    if m := _PERIOD_NO.search(text):
        return int(m.group(1))
    if m := _PERIOD_WORD.search(text):
        return _PERIOD_WORDS[m.group(1).lower()]
    return None


def names_in(text: str, question: bool = True) -> tuple[str, ...]:
    """Capitalised word runs ('Evan Fischer', 'Boston Celtics'): people and teams alike. A
    question's first word is capitalised as a sentence's, not as a name's."""
    first = text.split(" ", 1)
    body = first[1] if question and len(first) == 2 else text
    return tuple(dict.fromkeys(m.group(1).removesuffix("'s") for m in _NAME.finditer(body)))


def route_question(question: str) -> Route:
    """The evidence a question needs, read from its wording, clause by clause: a clause with
    a play cue asks the clips (its "score" or "led to" are a play's), one with only a document
    cue asks the documents, and a question whose clauses ask both spans them. One with no cue
    reads documents first and clips when the documents hold nothing."""
    facts, tail = split_framed(question)
    plays: list[str] = []
    facts_asked: list[tuple[Ask, str]] = []
    for clause in (c for c in _CLAUSES.split(tail) if c.strip()):
        if cue := clip_cue(clause):
            plays.append(cue)
        elif doc := document_cue(clause):
            facts_asked.append(doc)
    date = _DATE.search(question)
    ask: Ask = facts_asked[0][0] if facts_asked else "play" if plays else "fact"
    base = Route(
        needs=("documents", "clips"),
        ask=ask,
        tail=tail,
        facts=facts,
        date=date.group(1) if date else None,
        period=period_of(tail),
        names=names_in(tail),
    )
    if plays and facts_asked:
        why = f"asks about a play ('{plays[0]}') and a document fact ('{facts_asked[0][1]}')"
        return replace(base, why=why)
    if plays:
        how = " through document facts" if facts else ""
        return replace(
            base, needs=("clips",), why=f"asks about a play ('{plays[0]}'), names its game{how}"
        )
    if facts_asked:
        why = f"asks for a document fact ('{facts_asked[0][1]}')"
        return replace(base, needs=("documents",), why=why)
    return replace(base, open=True, why="no cue: documents first, clips when they hold nothing")
