"""The rubric judges of T4, STARBench and T6 and their metrics, on hand-computed cases: the
paper's prompts reach the model word for word, replies parse, best-of-k takes the best known
score, and the fallbacks without a judge model score only what text can decide."""

from __future__ import annotations

import asyncio

import pytest

from playscout.clients.chat import ChatParams, ModelError
from playscout.eval.judging.criteria import (
    CriteriaJudge,
    coverage_score,
    fact_of,
    fallback_criterion,
)
from playscout.eval.judging.metrics import RubricItem, judged_rubric_score, rubric_score
from playscout.eval.judging.rubric import (
    ANSWER_PROMPT,
    JUDGE_SYSTEM,
    LLMScoreJudge,
    best_of_k,
    fallback_score,
    parse_answers,
    parse_score,
)
from tests.doubles import ScriptedChatModel

GOLD = (
    "Casey Cizikas. He failed to track Dickinson to the back-post lane, losing inside coverage "
    "as the rush developed, which left Dickinson available for the finishing play."
)


def test_parse_answers_as_the_reference() -> None:
    text = "Answer 1: Cizikas lost Dickinson.\nAnswer 2: A bad line change.\nAnswer iii: Luck."
    assert parse_answers(text, 5) == ["Cizikas lost Dickinson.", "A bad line change.", "Luck."]
    assert parse_answers(text, 2) == ["Cizikas lost Dickinson.", "A bad line change."]
    assert parse_answers("Cizikas lost him.", 5) == []
    assert "up to 5 answers" in ANSWER_PROMPT.format(question="q", k=5)


@pytest.mark.parametrize(
    ("scores", "best"),
    [
        ([], 0.0),  # no answer parsed: the reference scores 0
        ([2.0, 4.0], 4.0),
        ([3.0, None, 5.0], 5.0),  # 5 is the ceiling: the unjudged one cannot beat it
        ([3.0, None], None),  # the unjudged one could have been better
        ([None], None),
        ([0.0], 0.0),
    ],
)
def test_best_of_k(scores: list[float | None], best: float | None) -> None:
    assert best_of_k(scores) == best


@pytest.mark.parametrize(
    ("reply", "score"),
    [
        (
            '{"gt_analysis": "..", "pred_analysis": "..", "justification_cot": "..", "score": 4}',
            4.0,
        ),
        ('<think>{"score": 5}</think>\n{"score": 2}', 2.0),  # reasoning never decides
        ('analysis... "score": "3" }', 3.0),
        ('{"score": 6}', None),  # outside 0-5
        ("I cannot grade this.", None),
    ],
)
def test_parse_score(reply: str, score: float | None) -> None:
    assert parse_score(reply).score == score


def test_fallback_scores_only_what_text_decides() -> None:
    q = "On Chicago's first-period scoring play, who was most at fault?"
    assert fallback_score(q, GOLD, None).score == 0.0
    assert fallback_score(q, GOLD, "Not found in the video.").score == 0.0
    assert fallback_score(q, GOLD, GOLD.upper()).score == 5.0
    paraphrase = "Cizikas lost track of Dickinson at the back post during the rush."
    assert fallback_score(q, GOLD, paraphrase).score is None  # needs a reader
    assert fallback_score("Who?", "Casey Cizikas", "It was Casey Cizikas.").score == 5.0
    assert fallback_score("Who?", "Casey Cizikas", "Simon Nemec").score == 0.0


def test_llm_score_judge_sends_fig32() -> None:
    client = ScriptedChatModel(['{"gt_analysis": "a", "score": 3}', ModelError("down")])
    judge = LLMScoreJudge(client, ChatParams(max_tokens=64))
    assert asyncio.run(judge.score("Q?", "G", "P")).score == 3.0
    system, user = client.requests[0].messages
    assert system.content == JUDGE_SYSTEM and "### 0 (Completely Wrong)" in JUDGE_SYSTEM
    assert user.content == "Question: Q?\nGT: G\nPred: P\n"
    failed = asyncio.run(judge.score("Q?", "G", "P"))
    assert failed.score is None and "judge call failed" in failed.reason
    assert asyncio.run(judge.score("Q?", "G", "  ")).score == 0.0  # no call for no answer
    assert len(client.requests) == 2


def _items() -> list[RubricItem]:
    return [
        RubricItem(name="fact", category="high_priority", weight=5),
        RubricItem(name="detail", category="medium_priority", weight=3),
        RubricItem(name="hallucination", category="penalty", weight=5, is_penalty=True),
    ]


@pytest.mark.parametrize(
    ("verdicts", "expected"),
    [
        ([True, True, False], (1.0, 0)),  # 8 / 8
        ([True, False, False], (0.625, 0)),  # 5 / 8
        ([True, False, True], (0.0, 0)),  # (5 - 5) / 8
        ([False, True, True], (0.0, 0)),  # (3 - 5) / 8 clipped at 0
        ([True, True, None], (1.0, 1)),  # unchecked penalty: an upper bound, counted
        ([None, True, False], (None, 0)),  # an unjudged criterion: no score
    ],
)
def test_judged_rubric_score(
    verdicts: list[bool | None], expected: tuple[float | None, int]
) -> None:
    assert judged_rubric_score(_items(), verdicts) == expected


def test_rubric_score_with_the_papers_weights() -> None:
    items = [
        *_items()[:2],
        RubricItem(name="context", category="low_priority", weight=1),
        _items()[2],
    ]
    assert rubric_score(items, [True, False, True, True]) == pytest.approx((5 + 1 - 5) / 9)


STAR = "Must mention that the coach told players to watch the opponent's hips"


def test_fallback_criterion() -> None:
    assert fact_of(STAR) == "the coach told players to watch the opponent's hips"
    assert fallback_criterion(
        "The coach told the players to watch the opponent's hips.", {"description": STAR}
    )
    assert fallback_criterion("The coach shouted at the players.", {"description": STAR}) is None
    assert fallback_criterion("It rained all day.", {"description": STAR}) is False
    assert fallback_criterion(None, {"description": STAR}) is False
    penalty = {"description": "Must not include information not present", "is_penalty": True}
    assert fallback_criterion("anything", penalty) is None


def test_coverage_reply_parsing() -> None:
    assert coverage_score("-- a — Covered — ok\nOverall Score: 3/4") == (3, 4)
    assert coverage_score("-- a — Covered — ok\n-- b — Not Covered — no") == (1, 2)
    assert coverage_score("no idea") is None


def test_criteria_judge_with_a_model() -> None:
    client = ScriptedChatModel([
        '{"satisfied": true, "reason": "states it"}',
        '{"satisfied": "maybe"}',
        "Overall Score: 1/2",
        '{"final_overall": {"justification_cot": "ok", "score": 4}}',
    ])  # fmt: skip
    judge = CriteriaJudge(client)
    assert asyncio.run(judge.criterion("Q?", "an answer", {"description": STAR})) is True
    assert "Criterion (criterion): " + STAR in client.requests[0].prompt
    assert asyncio.run(judge.criterion("Q?", "an answer", {"description": STAR})) is None
    assert asyncio.run(judge.coverage("soccer", ["f1", "f2"], "report")) == (1, 2)
    assert "GROUND-TRUTH FACT LIST:\nf1\nf2" in client.requests[2].prompt
    assert "shots on target" in client.requests[2].prompt  # the soccer section
    assert asyncio.run(judge.writing("Write 500 words.", "report")) == 4.0
    assert asyncio.run(CriteriaJudge(None).writing("Write.", "report")) is None
