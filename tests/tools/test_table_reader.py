"""The offline reader's table step: box-score rows by rule, as written, under their headers."""

from __future__ import annotations

from playscout.corpus.boxscore import finals, stat_rows
from playscout.tools.readers import TABLE_CONFIDENCE, extractive_answer
from playscout.tools.table_reader import named_sections, table_answer

BOX = """### Charlotte Hornets
Evan Coleman: 44 points, 18 rebounds, 7 assists, 48 minutes
Ryan Moreau: 37 points, 14 rebounds, 9 assists, 46 minutes
Max Fleming: 12 points, 3 rebounds, 9 assists, 30 minutes
### Boston Celtics
Jack Ashford: 51 points, 13 rebounds, 2 assists, 46 minutes
Alex Holt: 5 points, 3 rebounds, 4 assists, 17 minutes
"""
TEAM = """### Boston Celtics (home)
Final: 123 points
Rebounds: 61
### Charlotte Hornets (away)
Final: 102 points
Rebounds: 49
"""


def test_a_leader_question_answers_with_the_top_row_of_the_team_it_names() -> None:
    a = extractive_answer(BOX, "who led the Hornets in scoring?")
    assert (
        a.answer
        == "### Charlotte Hornets\nEvan Coleman: 44 points, 18 rebounds, 7 assists, 48 minutes"
    )
    assert a.evidence == "the most points of 3 rows under Charlotte Hornets"
    assert a.confidence == TABLE_CONFIDENCE
    # the team it plays against is not the one asked about; no team named: the whole game
    against = table_answer(BOX, "Who led Charlotte in rebounds in their game against Boston?")
    assert against is not None and [r.name for r in against.rows] == ["Evan Coleman"]
    whole = table_answer(BOX, "Who scored the most points?")
    assert whole is not None and [r.name for r in whole.rows] == ["Jack Ashford"]


def test_a_tie_is_reported_not_broken() -> None:
    tied = table_answer(BOX, "Who had the most assists for the Hornets?")
    assert tied is not None and [r.name for r in tied.rows] == ["Ryan Moreau", "Max Fleming"]
    assert tied.rule.endswith("(2 tied)")


def test_rows_the_question_names_answer_as_written() -> None:
    a = extractive_answer(BOX, "How many rebounds did Alex Holt have?")
    assert a.answer == "### Boston Celtics\nAlex Holt: 5 points, 3 rebounds, 4 assists, 17 minutes"
    both = extractive_answer(TEAM, "final score")
    assert both.answer == (
        "### Boston Celtics (home)\nFinal: 123 points\n"
        "### Charlotte Hornets (away)\nFinal: 102 points"
    )
    assert finals(stat_rows(both.answer or "")) == [
        ("Boston Celtics", 123),
        ("Charlotte Hornets", 102),
    ]


def test_prose_and_unasked_rows_fall_back_to_sentences_without_headers() -> None:
    report = "The Celtics beat the Hornets 123-102. Jack Ashford led Boston with 51 points."
    assert table_answer(report, "who led Boston in scoring?") is None
    assert table_answer(BOX, "who won the game?") is None
    a = extractive_answer(BOX, "who won the game?")
    assert a.answer is not None and not a.answer.startswith("###")


def test_a_team_is_named_by_the_largest_share_of_its_words() -> None:
    sections = ["Manchester United", "Manchester City", "Aston Villa", "Brentford"]
    assert named_sections("Who led Manchester United in passes?", sections) == ["Manchester United"]
    assert named_sections("between Aston Villa and Brentford", sections) == [
        "Aston Villa",
        "Brentford",
    ]
    assert named_sections("who led in passes?", sections) == sections
