"""The QA answer parser: reasoning is never the answer, the last answer wins, failures keep
the raw text with no invented confidence."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from playscout.clients.answers import parse_answer, parse_confidence, strip_reasoning

words = st.text(alphabet=st.characters(blacklist_characters="<>"), max_size=40)


def obj(answer: str, confidence: object = 0.9, evidence: str = "quote") -> str:
    return json.dumps({"answer": answer, "confidence": confidence, "evidence": evidence})


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_any_text_never_raises(text: str) -> None:
    out = parse_answer(text)
    assert isinstance(out.answer, str)
    assert out.confidence is None or 0.0 <= out.confidence <= 1.0


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list('{}[]"\\:,<>/answerthink json`0.9 \n')), max_size=300))
def test_structure_heavy_text_never_raises(text: str) -> None:
    parse_answer(text)


@settings(max_examples=200, deadline=None)
@given(words, words, st.booleans())
def test_answer_inside_think_is_ignored(decoy: str, real: str, closed: bool) -> None:
    thought = f"<think>maybe <answer>{obj('DECOY' + decoy)}</answer>"
    if closed:
        text = f"{thought}</think><answer>{obj('REAL' + real)}</answer>"
        assert parse_answer(text).answer == ("REAL" + real).strip()
    else:  # ran out of tokens while thinking: nothing after the tag is an answer
        out = parse_answer(thought)
        assert "DECOY" not in out.answer and out.confidence is None


@settings(max_examples=200, deadline=None)
@given(st.lists(words, min_size=2, max_size=5))
def test_last_answer_tag_wins(answers: list[str]) -> None:
    text = " ... ".join(f"<answer>{obj(f'A{i}{a}')}</answer>" for i, a in enumerate(answers))
    last = len(answers) - 1
    assert parse_answer(text).answer == f"A{last}{answers[-1]}".strip()


def test_lone_closing_think_drops_everything_before_it() -> None:
    text = f"I think {obj('wrong')} hmm</think>\n{obj('right', 0.7)}"
    out = parse_answer(text)
    assert (out.answer, out.confidence, out.parsed) == ("right", 0.7, True)


def test_fence_then_last_object() -> None:
    fenced = f"Here:\n```json\n{obj('fenced', '0.8')}\n```\nand {obj('later')}"
    assert parse_answer(fenced).answer == "fenced"
    plain = f'first {obj("one")} then {{"note": "x"}} and {obj("two", 1)} trailing {{ brace'
    out = parse_answer(plain)
    assert (out.answer, out.confidence, out.evidence) == ("two", 1.0, "quote")


def test_braces_inside_strings_and_nested_objects() -> None:
    text = json.dumps(
        {"answer": "a {weird} answer", "confidence": 0.5, "evidence": {"q": "x"}, "extra": [1]}
    )
    out = parse_answer(text)
    assert out.answer == "a {weird} answer"
    assert out.evidence == '{"q": "x"}'


def test_unparseable_keeps_raw_text_and_no_confidence() -> None:
    out = parse_answer("<think>hmm</think>The player used a jump shot.")
    assert out.parsed is False
    assert out.answer == "The player used a jump shot."
    assert out.confidence is None and out.evidence is None
    tagged = parse_answer("<answer>jump shot</answer>")
    assert (tagged.answer, tagged.parsed, tagged.confidence) == ("jump shot", False, None)
    assert parse_answer(None).answer == ""


def test_object_without_answer_key_is_not_an_answer() -> None:
    out = parse_answer('{"result": "x", "confidence": 0.9}')
    assert out.parsed is False and out.confidence is None


def test_non_string_answers_and_keys_in_any_case() -> None:
    out = parse_answer('{"Answer": 24, "Confidence": "95%", "Evidence": ["a", "b"]}')
    assert (out.answer, out.confidence, out.evidence) == ("24", 0.95, "a; b")


def test_confidence_forms() -> None:
    assert parse_confidence("0.9") == 0.9
    assert parse_confidence(90) == 0.9
    assert parse_confidence("85%") == 0.85
    assert parse_confidence(1) == 1.0
    for bad in ("high", None, True, -0.1, 250, "0.9 or so", float("nan")):
        assert parse_confidence(bad) is None


def test_strip_reasoning() -> None:
    assert strip_reasoning("<think>a</think>b<think>c</think>d") == "bd"
    assert strip_reasoning("x<THINK>never closed") == "x"
    assert strip_reasoning("pre</think>post") == "post"


def test_strip_reasoning_is_one_definition() -> None:
    """The agent's parser, the judge and answer parsing share the strictest variant: all
    text up to the last stray closing tag is reasoning, and nested blocks count by depth."""
    from playscout.agent import parser
    from playscout.clients import reasoning

    assert strip_reasoning is parser.strip_reasoning is reasoning.strip_reasoning
    assert strip_reasoning("a</think>b</think>c") == "c"
    assert strip_reasoning("<think>a</think>b</think>c") == "c"
    assert strip_reasoning("<think>a<think>b</think>c") == ""  # still inside the outer block
    assert strip_reasoning("  <think>x</think> answer \n") == "answer"
