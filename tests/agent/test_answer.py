from __future__ import annotations

from playscout.agent.answer import FALLBACK_ANSWER, extract_answer, is_fallback


def test_last_answer_outside_think_wins() -> None:
    text = "<answer>first</answer> <think><answer>draft</answer></think> <answer>last</answer>"
    assert extract_answer(text) == ("last", "answer")


def test_answer_inside_think_is_ignored() -> None:
    assert extract_answer("<think>maybe <answer>42</answer></think> still looking").kind == "none"
    assert extract_answer("<think>unclosed <answer>42</answer>").kind == "none"


def test_fallback_only_counts_inside_answer() -> None:
    assert extract_answer(FALLBACK_ANSWER).kind == "none"
    assert extract_answer(f"<answer>{FALLBACK_ANSWER}</answer>").kind == "fallback"


def test_fallback_with_text_run_on_is_still_the_fallback() -> None:
    """SmolLM2 goes on after the sentence; it still said it found nothing (these counted as
    answered before)."""
    run_on = FALLBACK_ANSWER + " I am forbidden to use what I know."
    assert is_fallback(run_on) and is_fallback(FALLBACK_ANSWER.rstrip(".") + ".</answer")
    assert extract_answer(f"<answer>{run_on}</answer>").kind == "fallback"
    assert not is_fallback("I cannot find the box score, but the answer is 21.")


def test_answer_inside_tool_call_is_not_an_answer() -> None:
    text = '<tool_call>{"name": "x", "arguments": {"q": "<answer>no</answer>"}}</tool_call>'
    assert extract_answer(text).kind == "none"


def test_unclosed_answer_counts_only_for_a_truncated_reply() -> None:
    assert extract_answer("so <answer>hesitation", truncated=True).answer == "hesitation"
    assert extract_answer("<answer>a</answer> <answer>b", truncated=True).answer == "a"
    # a model echoing the corrective message is not answering (seen with SmolLM2 on vLLM)
    echo = "The response did not contain a valid tool call or an <answer> tag."
    assert extract_answer(echo).kind == "none"
    assert extract_answer("so <answer>hesitation").kind == "none"
