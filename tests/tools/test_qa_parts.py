"""The QA tools' parts: token cuts, prompt templates, the extractive reader."""

from __future__ import annotations

from pathlib import Path

import pytest

from playscout.tools.prompts import load_template, placeholders, render
from playscout.tools.readers import (
    NO_EVIDENCE,
    bm25_scores,
    extractive_answer,
    rank_sentences,
    split_sentences,
    terms,
)
from playscout.tools.tokens import TokenizerError, token_counter

LONG = "Kemba Walker made a pull-up three-pointer from the left wing. " * 100


def test_tokens_cut_is_an_exact_prefix_and_ignores_the_128_token_model_cap() -> None:
    counter = token_counter()
    assert counter is token_counter()  # cached per file
    total = counter.count(LONG)
    assert total > 1000  # MiniLM's tokenizer.json truncates at 128 unless told not to
    cut = counter.truncate(LONG, 300)
    assert cut.cut and cut.tokens == 300 and cut.total_tokens == total
    assert LONG.startswith(cut.text) and counter.count(cut.text) == 300
    whole = counter.truncate("short text", 300)
    assert not whole.cut and whole.text == "short text"
    assert counter.truncate("", 5).tokens == 0


def test_tokenizer_path_errors(tmp_path: Path) -> None:
    with pytest.raises(TokenizerError, match="not found"):
        token_counter(tmp_path / "missing.json")
    bad = tmp_path / "tokenizer.json"
    bad.write_text("{}")
    with pytest.raises(TokenizerError, match=r"not a tokenizer\.json"):
        token_counter(bad)


def test_templates_are_the_papers_prompts() -> None:
    assert placeholders(load_template("document_qa")) == {"document_content", "query"}
    assert placeholders(load_template("video_qa")) == {"query"}
    assert placeholders(load_template("video_qa_oracle")) == {"captions", "query"}
    for name in ("document_qa", "video_qa", "video_qa_oracle"):
        text = load_template(name)
        assert '"there is no evidence"' in text and "confidence level as 1.0" in text
        assert '"answer"' in text and '"confidence"' in text and '"evidence"' in text


def test_render_is_one_pass_and_strict() -> None:
    out = render("document_qa", document_content="text with {{query}} inside", query="Q?")
    assert "text with {{query}} inside" in out and "Question: Q?" in out
    with pytest.raises(KeyError):
        render("video_qa", query="q", extra="x")
    with pytest.raises(KeyError):
        render("document_qa", query="q")


def test_sentences_split_by_line_then_prose() -> None:
    text = "Line one: 12 points\n\nThe Hornets won. Walker scored 30! Then 2.5 more?\nlast"
    assert split_sentences(text) == [
        "Line one: 12 points",
        "The Hornets won.",
        "Walker scored 30!",
        "Then 2.5 more?",
        "last",
    ]
    assert terms("What did the Hornets' guard do in Q4?") == ["hornets", "guard", "q4"]


def test_bm25_prefers_rare_matching_terms() -> None:
    sents = [terms(s) for s in ["walker scored", "hornets hornets", "walker assisted hornets"]]
    scores = bm25_scores(terms("walker assisted"), sents)
    assert scores.argmax() == 2 and scores[1] == 0


def test_extractive_answer_is_deterministic_and_honest() -> None:
    text = (
        "Charlotte beat Boston 112-104.\n"
        "Kemba Walker scored 31 points with 6 threes.\n"
        "Jayson Tatum had 12 rebounds."
    )
    a = extractive_answer(text, "How many points did Kemba Walker score?")
    assert a.answer == "Kemba Walker scored 31 points with 6 threes."
    assert a.confidence is not None and 0.5 <= a.confidence <= 1.0
    assert a.evidence is not None and a.evidence.startswith(a.answer)
    assert extractive_answer(text, "How many points did Kemba Walker score?") == a
    assert rank_sentences(text, "Tatum rebounds")[0].position == 2
    none = extractive_answer("", "anything")
    assert none.answer == NO_EVIDENCE and none.confidence is None
