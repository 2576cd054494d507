from __future__ import annotations

import asyncio

import pytest

from playscout.agent.answer import FALLBACK_ANSWER
from playscout.corpus.sports import sport
from playscout.eval.judging import EquivalenceJudge, LLMJudge, judge_equivalence, parse_verdict
from playscout.eval.judging.text import name_aliases, normalise
from tests.doubles import ScriptedChatModel


@pytest.mark.parametrize(
    ("question", "gold", "pred", "verdict"),
    [
        ("Who assisted?", "Paul Underwood", "It was Paul Underwood.", "right"),
        ("What type of shot?", "layup", "A Layup", "right"),
        ("How many points?", "27", "twenty-seven", "right"),
        ("How many points?", "27", "28", "wrong"),
        ("How many goals?", "0", "not found", "wrong"),
        ("How many goals?", "0", "0", "right"),
        ("Who scored?", "Paul Underwood", FALLBACK_ANSWER, "wrong"),
        ("Who scored?", "Not found", FALLBACK_ANSWER, "right"),
        ("What was the score?", "27-20", "20-27", "right"),
        ("What was the score?", "11-7", "With 5:53 left, the score stood at 11-7.", "right"),
        ("Who led after the run, and by how much?", "27-20", "20-27", "wrong"),
        ("Which play type?", "pick and roll", "pick-and-roll", "right"),
        ("Who scored?", "Paul Underwood", "David Baker", "wrong"),
        ("Who scored?", "Paul Underwood", None, "wrong"),
    ],
)
def test_equivalence(question: str, gold: str, pred: str | None, verdict: str) -> None:
    assert judge_equivalence(question, gold, pred).verdict == verdict


ALIASES = name_aliases(
    ["Los Angeles Lakers", "Boston Celtics", "Charlotte Hornets"],
    ["Paul Underwood", "David Baker", "Nico Coleman", "Grant Coleman"],
    sport("basketball").team_aliases,
)


@pytest.mark.parametrize(
    ("gold", "pred", "verdict"),
    [
        ("1st quarter", "first quarter", "right"),
        ("4th", "fourth", "right"),
        ("in the 3rd quarter", "Third quarter.", "right"),
        ("2nd quarter", "fourth quarter", "wrong"),
        ("Los Angeles Lakers", "the Lakers", "right"),  # nickname table and last word
        ("Boston Celtics", "Celts", "right"),
        ("Paul Underwood", "Underwood", "right"),  # a unique surname
        ("Nico Coleman", "Coleman", None),  # two Colemans: not an alias, so a reader decides
        ("Charlotte Hornets", "Lakers", "wrong"),
    ],
)
def test_equivalence_normalises_ordinals_and_aliases(
    gold: str, pred: str, verdict: str | None
) -> None:
    judge = EquivalenceJudge({"basketball": ALIASES})
    assert asyncio.run(judge.judge("Q?", gold, pred, "basketball")).verdict == verdict


def test_aliases_apply_only_to_their_sport_and_corpus() -> None:
    judge = EquivalenceJudge({"basketball": ALIASES})
    # without hockey's table the surname is not known to be his: a reader decides
    assert asyncio.run(judge.judge("Q?", "Paul Underwood", "Underwood", "hockey")).verdict is None
    assert asyncio.run(judge.judge("Q?", "Paul Underwood", "Underwood", "basketball")).verdict == (
        "right"
    )
    # a nickname whose team the corpus lacks is not an alias
    assert "dubs" not in ALIASES and "lakers" in ALIASES


def test_equivalence_abstains_on_long_text() -> None:
    long = "With 0:37 left in the 3rd quarter Paul Underwood passed to David Baker " * 2
    assert judge_equivalence("Who?", "Paul Underwood", long).verdict is None


def test_normalise() -> None:
    assert normalise("The Twenty-one-point lead!") == "21 point lead"


def test_parse_verdict() -> None:
    assert (
        parse_verdict('<think>hmm</think>{"verdict": "Right", "reason": "same"}').verdict == "right"
    )
    assert parse_verdict("Wrong. The numbers differ").verdict == "wrong"
    assert parse_verdict("").verdict is None
    assert parse_verdict('{"verdict": "maybe"}').verdict is None
    # reasoning never decides: an unclosed block, a template-opened one, any case
    assert parse_verdict('<think>{"verdict": "Right"} wait, no').verdict is None
    assert parse_verdict('Right? no</think>{"verdict": "Wrong"}').verdict == "wrong"
    assert parse_verdict("<THINK>Right</THINK>Wrong.").verdict == "wrong"


def test_llm_judge_includes_question() -> None:
    client = ScriptedChatModel(['{"verdict": "Wrong", "reason": "x"}'], model="scripted-judge")
    v = asyncio.run(LLMJudge(client).judge("Who assisted on the dunk?", "A", "B"))
    assert v.verdict == "wrong"
    assert "Question: Who assisted on the dunk?" in client.requests[0].prompt
    assert "Ground Truth: A" in client.requests[0].prompt
