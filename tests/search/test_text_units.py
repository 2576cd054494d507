"""Passage splitting, highlight cutting and query sanitising: properties the search relies on."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from playscout.search.backend_api import HIGHLIGHT_MAX_CHARS, HIGHLIGHT_SEP
from playscout.search.core.highlight import clip_highlights
from playscout.search.core.passages import MAX_WORDS, split_passages
from playscout.search.embedded.text import TextIndex, build_text_index, query_text

words = st.text(alphabet="abcdefgh", min_size=1, max_size=8)
lines = st.lists(st.lists(words, max_size=90).map(" ".join), max_size=12)


@settings(deadline=None)  # pure function; a loaded CI machine must not fail it on time
@given(lines)
def test_passages_cover_every_word_in_order(text_lines: list[str]) -> None:
    text = "\n".join(text_lines)
    spans = split_passages(text)
    assert [w for s, e in spans for w in text[s:e].split()] == text.split()
    assert all(s < e for s, e in spans)
    assert all(e1 <= s2 for (_, e1), (s2, _) in itertools.pairwise(spans))
    assert all(len(text[s:e].split()) <= MAX_WORDS for s, e in spans)


def test_passages_pack_whole_lines() -> None:
    text = "a b c\nd e\n\n" + " ".join(["w"] * 70) + "\nlast line"
    spans = [text[s:e] for s, e in split_passages(text)]
    assert spans[0] == "a b c\nd e"  # short lines packed together, newline kept
    assert len(spans[1].split()) == 64 and len(spans[2].split()) == 6
    assert spans[-1] == "last line"


@given(st.lists(st.text(max_size=400), max_size=6))
def test_highlights_never_exceed_limit(parts: list[str]) -> None:
    out = clip_highlights(parts)
    assert len(HIGHLIGHT_SEP.join(out)) <= HIGHLIGHT_MAX_CHARS


def test_highlights_keep_rank_order() -> None:
    out = clip_highlights(["first passage", "second passage", "x" * 800])
    assert out[:2] == ["first passage", "second passage"]
    assert out[2].endswith("…")


def test_query_syntax_is_neutralised() -> None:
    assert query_text('LeBron AND -dunk title:"x" (3pt)') == "lebron and dunk title x 3pt"
    assert query_text("  ?! ") == ""


def test_underscored_words_are_split_not_phrased() -> None:
    assert query_text("player_id 401234_118") == "player id 401234 118"


@pytest.fixture(scope="module")
def bm25_index(tmp_path_factory: pytest.TempPathFactory) -> TextIndex:
    path = tmp_path_factory.mktemp("bm25")
    build_text_index(path, [(0, "Stephen Curry made a step-back three"), (1, "player_id 7 dunks")])
    return TextIndex(path)


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(query=st.text())
def test_any_query_text_searches_without_error(bm25_index: TextIndex, query: str) -> None:
    rows, scores = bm25_index.search(query, 5)
    assert len(rows) == len(scores) <= 2
