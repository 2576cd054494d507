"""The deterministic answer-equivalence judge, used when no judge model is configured. It
applies Figure 42's rules mechanically and abstains (verdict None) where only a reader could
decide, e.g. a long prediction that merely contains the gold text."""

from __future__ import annotations

import re
from collections.abc import Mapping

from playscout.eval.judges.judge import Verdict
from playscout.eval.judges.text import (
    apply_aliases,
    is_not_found,
    normalise,
    numbers,
    score_pair,
)

_ASKS_SCORE = re.compile(r"\b(the )?(final |current |halftime )?score\b", re.I)
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
    g, p = normalise(gold), normalise(pred)
    if aliases:
        g, p = apply_aliases(g, aliases), apply_aliases(p, aliases)
    if g == p:
        return Verdict(verdict="right", reason="same after normalisation")
    gs, ps = score_pair(gold), score_pair(pred)
    if gs is not None:
        if ps is None:
            return Verdict(verdict="wrong", reason="gold is a score, prediction has none")
        if ps == gs or (_ASKS_SCORE.search(question) and ps == (gs[1], gs[0])):
            return Verdict(verdict="right", reason="same score")
        return Verdict(verdict="wrong", reason=f"score {ps[0]}-{ps[1]} vs {gs[0]}-{gs[1]}")
    gn, pn = numbers(gold), numbers(pred)
    if gn and len(g.split()) <= 3:  # a numeric answer: the value must match exactly
        if pn and pn[0] == gn[0] and len(set(pn)) == 1:
            return Verdict(verdict="right", reason="same number")
        if not pn or gn[0] not in pn:
            return Verdict(verdict="wrong", reason="numbers differ")
        return Verdict(verdict=None, reason="gold number among several numbers: needs a reader")
    g_tokens, p_tokens = g.split(), p.split()
    if _contains(p_tokens, g_tokens):
        if len(p_tokens) - len(g_tokens) <= MAX_EXTRA_TOKENS:
            return Verdict(verdict="right", reason="prediction contains the gold answer")
        return Verdict(verdict=None, reason="gold text inside a long prediction: needs a reader")
    return Verdict(verdict="wrong", reason="different answer")


def _contains(hay: list[str], needle: list[str]) -> bool:
    n = len(needle)
    return n > 0 and any(hay[i : i + n] == needle for i in range(len(hay) - n + 1))
