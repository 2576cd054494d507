"""The deterministic answer-equivalence judge, used when no judge model is configured. It
applies Figure 42's rules mechanically, deciding what a careful reader would decide from the
gold and the answer alone (the gold phrase standing whole in the answer, not negated or offered
as one option of several; numbers, ordinals and scores in any spelling; team and player
aliases), and abstains (verdict None) where only a reader could tell. Its agreement with a
hand-labelled set is measured by benchmarks/judge_agreement.py."""

from __future__ import annotations

import re
from collections.abc import Mapping

from playscout.corpus.numbers import ORDINAL_WORDS
from playscout.eval.judging import phrases
from playscout.eval.judging.judge import Verdict
from playscout.eval.judging.text import (
    apply_aliases,
    is_not_found,
    normalise,
    numbers,
    words_to_digits,
)

_ASKS_SCORE = re.compile(r"\b(the )?(final |current |halftime )?score\b", re.I)
_HOME_AWAY = re.compile(r"\bhome\s*[-–/]\s*away\b", re.I)
_SCORE = re.compile(
    r"(?<![\d:.])(\d{1,3})\s*(?:-|–|to|:)\s*(\d{1,3})(?![\d:])(?!\s*(?:left|remaining|to go|into|elapsed))"
)
_CLOCK = re.compile(
    r"(?:\b(?:with|at)\s+)?\b\d{1,2}:\d{2}\s*(?:left|remaining|to go|elapsed|on the clock)\b"
    r"|\b(?:with|at)\s+\d{1,2}:\d{2}\b",
    re.I,
)  # "with 5:53 left" is a game clock; "36:32" alone is a score
_STAT_UNITS = frozenset(
    {"points", "rebounds", "assists", "steals", "blocks", "goals", "saves", "shots", "hits"}
    | {"turnovers", "fouls", "minutes", "tackles", "passes", "corners", "shot"}
)
_YES, _NO = frozenset({"yes", "yeah", "yep", "correct"}), frozenset({"no", "nope"})
_CLAUSE = re.compile(r"[.;,:!?]+(?=\s|$)|\s(?:but|while|whereas)\s", re.I)
_JERSEY_Q = re.compile(r"\b(jersey|shirt|uniform|sweater)\b|\bwhat number\b", re.I)
_JERSEY = re.compile(r"\(?#\d+\)?")
_COUNT_Q = re.compile(r"\bhow many\b", re.I)
_ORDINAL = re.compile(r"\b(\d+(?:st|nd|rd|th)|" + "|".join(ORDINAL_WORDS) + r")\b", re.I)
# words two answers share without sharing meaning ("pick and roll" and "Nets and Hornets")
_FUNCTION_WORDS = frozenset(
    {"and", "of", "in", "on", "at", "to", "from", "by", "with", "for", "off", "into", "his", "her"}
)
MAX_EXTRA_TOKENS = 12


class EquivalenceJudge:
    """`aliases`: sport -> (normalised alias -> normalised canonical name), from
    judges.text.name_aliases; a sport without a table compares names as written."""

    name = "equivalence"

    def __init__(self, aliases: Mapping[str, Mapping[str, str]] | None = None) -> None:
        self.aliases = dict(aliases or {})

    async def judge(
        self, question: str, gold: str, pred: str | None, sport: str | None = None
    ) -> Verdict:
        return judge_equivalence(question, gold, pred, self.aliases.get(sport or ""))


def judge_equivalence(
    question: str, gold: str, pred: str | None, aliases: Mapping[str, str] | None = None
) -> Verdict:
    if pred is None or not pred.strip():
        return Verdict(verdict="wrong", reason="no answer")
    gold_nf, pred_nf = is_not_found(gold), is_not_found(pred)
    if gold_nf or pred_nf:
        ok = gold_nf and pred_nf
        return Verdict(
            verdict="right" if ok else "wrong",
            reason="both say not found" if ok else "not found vs a specific value",
        )
    g, p = _prepare(gold, aliases), _prepare(pred, aliases)
    if g == p:
        return Verdict(verdict="right", reason="same after normalisation")
    if g in ("yes", "no"):
        return _yes_no(question, g, p)
    gs = _scores(gold, "") if re.search(r"\d", gold) else []  # "one-two" is a play, not 1-2
    if gs:
        return _score(question, gs[0], pred)
    # a number standing alone; one inside a compound ("three-pointer", "six-yard box") is a word
    gn = [n for t in normalise(gold, keep_hyphens=True).split() if "-" not in t for n in numbers(t)]
    if gn and len(g.split()) <= 3:
        return _number(question, gold, gn[0], pred, p)
    return _phrase(question, gold, pred, g, p, aliases)


def _prepare(text: str, aliases: Mapping[str, str] | None) -> str:
    out = phrases.canonical_terms(normalise(text, keep_hyphens=True))
    return apply_aliases(out, aliases) if aliases else out


def _yes_no(question: str, g: str, p: str) -> Verdict:
    tokens = p.split()
    first = tokens[0] if tokens else ""
    said = "yes" if first in _YES else "no" if first in _NO else None
    if said is None and len(tokens) <= 6:  # "He made it." to "did he make ...?"
        words, asked = set(tokens), set(normalise(question).split())
        if asked & phrases.MADE and not asked & phrases.MISSED:
            if words & (phrases.MISSED | phrases.NEGATORS):
                said = "no"
            elif words & phrases.MADE:
                said = "yes"
    if said is None:
        return Verdict(verdict=None, reason="yes/no gold, the answer says neither first")
    if phrases.HEDGES & set(tokens):
        return Verdict(verdict=None, reason="a hedged yes/no: needs a reader")
    ok = said == g
    return Verdict(verdict="right" if ok else "wrong", reason=f"answers {said}, gold {g}")


def _scores(text: str, question: str) -> list[tuple[int, int]]:
    """Score pairs in any separator ("102-98", "102 to 98", "102:98"), game clocks and pairs the
    question itself names (a "10-0 run", a "5-1-2" record) left out."""
    asked = set(_SCORE.findall(words_to_digits(question)))
    found = _SCORE.findall(_CLOCK.sub(" ", words_to_digits(text)))
    return [(int(a), int(b)) for a, b in found if (a, b) not in asked]


def _score(question: str, gs: tuple[int, int], pred: str) -> Verdict:
    ps = list(dict.fromkeys(_scores(pred, question)))
    rev = (gs[1], gs[0])
    if not ps:
        nums = [n for n in numbers(_CLOCK.sub(" ", pred)) if n not in numbers(question)]
        if sorted(nums) == sorted(float(v) for v in gs):
            return Verdict(verdict=None, reason="the two numbers of the score, order unclear")
        return Verdict(verdict="wrong", reason="gold is a score, prediction has none")
    hedge = " or " in f" {pred.lower()} "
    if len(ps) > 1 and (gs in ps or rev in ps):
        if hedge:
            return Verdict(verdict="wrong", reason="several scores offered")
        return Verdict(verdict=None, reason="several scores: needs a reader")
    if ps[0] == gs:
        return Verdict(verdict="right", reason="same score")
    if ps[0] == rev:
        if not _HOME_AWAY.search(question) and _ASKS_SCORE.search(question):
            return Verdict(verdict="right", reason="same score")
        if re.search(r"\b(home|away|visitors?|hosts?|led|lead|leading|trailed)\b", pred, re.I):
            return Verdict(
                verdict=None, reason="the score reversed but sides named: needs a reader"
            )
        return Verdict(verdict="wrong", reason="score in the other order (home-away asked)")
    return Verdict(verdict="wrong", reason=f"score {ps[0][0]}-{ps[0][1]} vs {gs[0]}-{gs[1]}")


def _number(question: str, gold: str, value: float, pred: str, p: str) -> Verdict:
    """A numeric gold ("10", "3rd quarter", "28 points"): the answer's numbers, game clocks,
    numbers the question already names and negated numbers ("46, not 64") left out."""
    own = _own_jersey(question, pred)
    if own is not None:  # "Max Fleming (#33) passed ..." to "what number was Max Fleming ...?"
        ok = own == value
        return Verdict(verdict="right" if ok else "wrong", reason="the named player's number")
    text = _SCORE.sub(" ", _CLOCK.sub(" ", pred))  # a score's or clock's digits are not the answer
    if not _JERSEY_Q.search(question):
        text = _JERSEY.sub(" ", text)
    if _COUNT_Q.search(question):  # "the 1st half" is no count
        text = _ORDINAL.sub(" ", text)
    for word, n in phrases.COUNT_WORDS.items():
        text = re.sub(rf"\b{word.replace(' ', '[ -]')}\b", str(n), text, flags=re.I)
    tokens = normalise(text).split()
    echoed = set(zip(q := normalise(question).split(), q[1:], strict=False))
    nums: list[float] = []
    for i, t in enumerate(tokens):
        for v in numbers(t):
            if tuple(tokens[i : i + 2]) in echoed and v != value:  # "in the 3rd period", as asked
                continue
            if any(w in ("not", "never", "t") for w in tokens[max(0, i - 2) : i]):
                continue
            nums.append(v)
    if not nums and value == 0 and bool((phrases.NEGATORS | {"none", "nothing"}) & set(tokens)):
        return Verdict(verdict="right", reason="none for a gold of 0")
    asked = set(numbers(question))
    kept = [v for v in nums if v == value or v not in asked] or nums
    if not kept:
        return Verdict(verdict="wrong", reason="no number in the answer")
    if value not in kept:
        return Verdict(verdict="wrong", reason="numbers differ")
    if len(set(kept)) > 1 and re.search(r"\bor\b", text, re.I):
        return Verdict(verdict="wrong", reason="several numbers offered")
    unit = _unit_after(normalise(gold).split(), value)
    said = _unit_after(tokens, value)
    if unit and said and unit != said:
        return Verdict(verdict="wrong", reason=f"{said} vs {unit}")
    if len(set(kept)) > 1:
        return Verdict(verdict=None, reason="gold number among several numbers: needs a reader")
    return Verdict(verdict="right", reason="same number")


def _own_jersey(question: str, pred: str) -> float | None:
    """The number written beside the player the question names, for a jersey question."""
    asked = _JERSEY_Q.search(question)
    if not asked:
        return None
    for name in phrases.full_names(question[asked.start() :]):  # whose number is asked
        m = re.search(re.escape(name) + r"\W{0,3}(?:#|no\.?\s*|number\s+)(\d+)", pred, re.I)
        if m:
            return float(m.group(1))
    return None


def _unit_after(tokens: list[str], value: float) -> str | None:
    for i, t in enumerate(tokens[:-1]):
        if numbers(t) == [value] and tokens[i + 1] in _STAT_UNITS:
            return tokens[i + 1].rstrip("s")
    return None


def _phrase(
    question: str, gold: str, pred: str, g: str, p: str, aliases: Mapping[str, str] | None
) -> Verdict:
    g_tok, p_tok = phrases.units(g), phrases.units(p)
    context = normalise(f"{question} {gold}").split()
    spans = phrases.find_phrase(p_tok, g_tok)
    if spans:
        for clause in _CLAUSE.split(pred):  # a negation reaches to the end of its clause only
            c_tok = phrases.units(_prepare(clause, aliases))
            for span in phrases.find_phrase(c_tok, g_tok):
                if phrases.negated(c_tok, span):
                    return Verdict(verdict="wrong", reason="the gold answer negated")
                if phrases.polarity_flipped(context, c_tok, span):
                    return Verdict(verdict="wrong", reason="made vs missed")
        if any(phrases.hedged(p_tok, span) for span in spans):
            return Verdict(verdict="wrong", reason="the gold answer offered among options")
        if phrases.looks_like_name(gold) and _other_names(question, gold, pred):
            return Verdict(verdict=None, reason="other names beside the gold one: needs a reader")
        if len(p_tok) - len(g_tok) > MAX_EXTRA_TOKENS and len(spans) > 1:
            return Verdict(verdict=None, reason="gold text repeated in a long answer")
        return Verdict(verdict="right", reason="prediction contains the gold answer")
    g_words = set(normalise(g).split()) - _FUNCTION_WORDS
    p_words = set(normalise(p).split()) - _FUNCTION_WORDS
    if phrases.opposite_swap(sorted(g_words), sorted(p_words)):
        return Verdict(verdict="wrong", reason="an opposite of the gold answer")
    shared = g_words & p_words
    if phrases.abbreviated(pred, g_words, p_words):
        return Verdict(verdict=None, reason="an abbreviation or inflection: needs a reader")
    if not shared:  # Figure 42: the answer must cover the gold's key information
        return Verdict(verdict="wrong", reason="different answer")
    short = len(p_words) <= len(g_words) + 1
    if phrases.looks_like_name(gold) and short and p_words - g_words and g_words - p_words:
        return Verdict(verdict="wrong", reason="a different name")
    return Verdict(verdict=None, reason="some gold words, not the gold phrase: needs a reader")


def _other_names(question: str, gold: str, pred: str) -> bool:
    """Full names in the answer other than the gold's and the question's ("P. Coleman" for
    Pierre Coleman is the gold's own)."""
    known = f" {normalise(question)} {normalise(gold)} "
    last = normalise(gold).split()[-1]
    return any(
        f" {normalise(n)} " not in known and normalise(n).split()[-1] != last
        for n in phrases.full_names(pred)
    )
