from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playscout.agent.parser import loads_tolerant, parse_tool_calls, strip_reasoning

names = st.from_regex(r"[a-z_]{1,20}", fullmatch=True)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
arguments = st.dictionaries(st.text(max_size=10), json_values, max_size=4)
# surrounding prose: anything that does not itself open a think or tool-call block
prose = st.text(max_size=80).filter(
    lambda s: "think>" not in s.lower() and "tool_call>" not in s.lower()
)


def block(name: str, args: dict) -> str:
    return "<tool_call>" + json.dumps({"name": name, "arguments": args}) + "</tool_call>"


@settings(max_examples=300)
@given(st.text(max_size=300))
def test_never_raises_on_arbitrary_output(text: str) -> None:
    calls, errors = parse_tool_calls(text)
    assert isinstance(calls, list) and isinstance(errors, list)


@settings(max_examples=300)
@given(
    st.lists(
        st.sampled_from(
            ["<tool_call>", "</tool_call>", "<think>", "</think>", "{", "}", '"', "x", ",", "'"]
        ),
        max_size=40,
    )
)
def test_never_raises_on_tag_soup(parts: list[str]) -> None:
    parse_tool_calls("".join(parts))


@settings(max_examples=200)
@given(prose, prose, names, arguments)
def test_embedded_call_is_found_exactly(before: str, after: str, name: str, args: dict) -> None:
    calls, errors = parse_tool_calls(before + block(name, args) + after)
    assert len(calls) == 1, errors
    assert calls[0].name == name
    assert calls[0].arguments == args


@settings(max_examples=200)
@given(prose, prose, names, arguments, st.booleans())
def test_call_inside_think_is_never_returned(
    before: str, after: str, name: str, args: dict, closed: bool
) -> None:
    text = before + "<think>" + block(name, args) + ("</think>" + after if closed else after)
    assert parse_tool_calls(text).calls == []


@settings(max_examples=100)
@given(st.lists(st.tuples(names, arguments), min_size=1, max_size=5), prose)
def test_n_calls_first_returned_rest_counted(calls: list, sep: str) -> None:
    text = sep.join(block(n, a) for n, a in calls)
    result = parse_tool_calls(text)
    assert result.first is not None
    assert (result.first.name, result.first.arguments) == calls[0]
    assert result.ignored == len(calls) - 1


def test_unclosed_block_runs_to_end_and_missing_braces_repaired() -> None:
    result = parse_tool_calls(
        'ok <tool_call>{"name": "search_videos", "arguments": {"query": "dunk"'
    )
    assert result.first is not None and result.first.arguments == {"query": "dunk"}


def test_arguments_as_json_string_and_repairs() -> None:
    result = parse_tool_calls('<tool_call>{"name": "a", "arguments": "{\\"q\\": 1}"}</tool_call>')
    assert result.first is not None and result.first.arguments == {"q": 1}
    assert loads_tolerant("{'name': 'a', 'arguments': {'x': [1,2,],},}") == {
        "name": "a",
        "arguments": {"x": [1, 2]},
    }


def test_json5_reads_what_the_repairs_cannot() -> None:
    """Unquoted keys and mixed quotes: json5 is a dependency, so every install parses alike."""
    call = parse_tool_calls(
        """<tool_call>{name: 'search_videos', arguments: {query: "Kemba's step-back"}}</tool_call>"""
    ).first
    assert call is not None and call.name == "search_videos"
    assert call.arguments == {"query": "Kemba's step-back"}


def test_bad_json_becomes_an_error_not_a_call() -> None:
    result = parse_tool_calls("<tool_call>{name: search}</tool_call>")
    assert result.calls == [] and result.errors and "tool call 1" in result.errors[0]
    assert parse_tool_calls('<tool_call>{"arguments": {}}</tool_call>').errors


def test_naked_json_is_not_a_call() -> None:
    assert parse_tool_calls('{"name": "search_documents", "arguments": {}}').calls == []


def test_strip_reasoning_variants() -> None:
    assert strip_reasoning("a<think>b</think>c") == "ac"
    assert strip_reasoning("a<think>b") == "a"
    assert strip_reasoning("plan</think>answer") == "answer"  # template-opened block
    assert strip_reasoning("<think>a<think>b</think>c</think>d") == "d"
    # a call before a stray closing tag was reasoning too (the strictest of the old variants)
    stray = block("a", {}) + "</think>" + block("b", {}) + "</think>" + block("c", {})
    assert [c.name for c in parse_tool_calls(stray).calls] == ["c"]


@pytest.mark.parametrize("text", ["<think>", "<THINK>", "</think>", "a </think> b <think> c"])
def test_think_tags_inside_arguments_are_data(text: str) -> None:
    """Found by the property test above: an argument that mentions a reasoning tag used to be
    read as reasoning, so the call was lost or cut."""
    args = {"query": text, text: None}
    result = parse_tool_calls("I will search. " + block("search_documents", args))
    assert result.errors == [] and len(result.calls) == 1
    assert result.calls[0].arguments == args


def test_draft_call_in_reasoning_still_hidden_when_arguments_mention_tags() -> None:
    draft = block("search_documents", {"query": "</think> trick"})
    real = block("search_videos", {"query": "<think>"})
    result = parse_tool_calls(f"<think>{draft}</think>{real}")
    assert [c.name for c in result.calls] == ["search_videos"]
    assert result.calls[0].arguments == {"query": "<think>"}


@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_private_use_characters_in_arguments_survive(ensure_ascii: bool) -> None:
    """Found by the property test in CI: "<" was shielded as U+E000 and every U+E000 in the
    decoded arguments became "<", so a key written as the escape "\\ue000" came back as "<"."""
    args = {"\ue000": None, "q": "a\ue000<think>b\ue001"}
    text = "<tool_call>" + json.dumps({"name": "f", "arguments": args}, ensure_ascii=ensure_ascii)
    result = parse_tool_calls(text + "</tool_call> and \ue002 after")
    assert result.errors == [] and len(result.calls) == 1
    assert result.calls[0].arguments == args
