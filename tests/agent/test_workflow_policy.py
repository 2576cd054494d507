"""The workflow baseline reads what the question asks for: routing by rule, a leader question
answered from the box score with its source, T9 facts checked with document_qa, and a game
without clips answered from its documents or with a plain no-answer that says why."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from playscout.agent import Agent
from playscout.agent.policies.reading import short_answer
from playscout.agent.policies.route import route_question, split_framed
from playscout.corpus import Corpus
from playscout.corpus.boxscore import stat_rows
from playscout.tools import ToolContext
from playscout.tools.registry import ALL_TOOLS
from tests.synthdata import SynthIndex, index_corpus

T9 = (
    "In the game where Brandon Alvarez had 8 assists, well above his season average of 4.2 "
    "and the Cleveland Cavaliers used an 11-0 run in the fourth quarter, what kind of play led "
    "to Evan Fischer's first made field goal of the 1st quarter?"
)


@pytest.mark.parametrize(
    ("question", "needs", "ask"),
    [
        ("who led the Hornets in scoring?", ("documents",), "leader"),
        ("Who was the top scorer for Boston?", ("documents",), "leader"),
        ("What was the final score of the Celtics game on 2022-10-26?", ("documents",), "score"),
        ("Who won the game between the Bulls and the Celtics?", ("documents",), "winner"),
        ("Did the Bulls win on 2022-11-01?", ("documents",), "winner"),
        ("How did the 2022-11-01 game between Chicago and Boston end?", ("documents",), "score"),
        ("How many goals did Max Hale score against Arsenal?", ("documents",), "stat"),
        ("How many rebounds did Victor Jennings have?", ("documents",), "stat"),
        ("What is the Celtics' record after that game?", ("documents",), "record"),
        ("What type of shot was Jack Ashford's first made field goal of the 2nd quarter?",
         ("clips",), "play"),
        ("What was the score (home-away) right after Andre Bennett's fifth made field goal of "
         "the 1st quarter?", ("clips",), "play"),
        ("Who assisted on Max Hale's goal?", ("clips",), "play"),
        ("What jersey number was Leo Lambert wearing?", ("clips",), "play"),
        ("How many shots did Jalen Crane have from outside the box in the 2nd half?",
         ("clips",), "play"),
        ("How did Max Hale score his first goal of the 2nd half?", ("clips",), "play"),
        ("Who won, and what kind of play led to the last goal?", ("documents", "clips"), "winner"),
        (T9, ("clips",), "play"),
    ],
)  # fmt: skip
def test_routes_each_kind_of_question(question: str, needs: tuple[str, ...], ask: str) -> None:
    route = route_question(question)
    assert (route.needs, route.ask, route.open) == (needs, ask, False), route.why


def test_a_question_without_cues_reads_documents_then_clips() -> None:
    route = route_question("Tell me about Jack Ashford")
    assert route.needs == ("documents", "clips") and route.open


def test_framed_question_splits_into_facts_period_and_player() -> None:
    facts, tail = split_framed(T9)
    assert facts == (
        "Brandon Alvarez had 8 assists, well above his season average of 4.2",
        "the Cleveland Cavaliers used an 11-0 run in the fourth quarter",
    )
    assert tail.startswith("what kind of play led to Evan Fischer's")
    route = route_question(T9)
    assert (route.period, route.names) == (1, ("Evan Fischer",))
    assert route_question("Who led Chicago on 2022-10-26?").date == "2022-10-26"


def _leader(corpus: Corpus, sport: str, game: str) -> tuple[str, str]:
    """(team, its unique points leader) from the game's box score."""
    doc = next(d for d in corpus.game_documents(sport, game) if d.doc_type == "game_stat_player")
    rows = stat_rows(doc.text)
    for team in dict.fromkeys(r.team for r in rows):
        points = sorted(
            ((r.counts["points"], r.name) for r in rows if r.team == team), reverse=True
        )
        if points[0][0] > points[1][0]:
            return team, points[0][1]
    raise AssertionError("no team with a unique points leader")


def test_leader_question_is_answered_from_the_box_score(synth_index: SynthIndex) -> None:
    corpus = synth_index.corpus
    game = corpus.games_in_order(synth_index.sport)[0]
    team, leader = _leader(corpus, synth_index.sport, game)
    nickname = team.split()[-1]
    agent = Agent(synth_index.ctx("oracle"), tools=ALL_TOOLS, policy="workflow")
    result = agent.run_sync(f"who led the {nickname} in scoring?")
    assert (result.status, result.answer) == ("answered", leader)
    source = result.evidence["source"][0]
    assert source.startswith(f"{game}_game_stat_player (document_qa): ### {team}\n{leader}: ")
    assert "baseline" in (result.note or "") and f"{game}_game_stat_player" in (result.note or "")
    calls = [e.name for e in result.events if e.type == "tool_call"]
    assert "document_qa" in calls and "video_qa" not in calls, calls


def test_t9_facts_are_checked_by_reading_documents(synth_index: SynthIndex) -> None:
    q = synth_index.questions()[0]
    agent = Agent(synth_index.ctx("oracle"), tools=ALL_TOOLS, policy="workflow")
    result = agent.run_sync(q.question)
    reads = [e for e in result.events if e.type == "tool_call" and e.name == "document_qa"]
    facts, _ = split_framed(q.question)
    assert [e.arguments["query"] for e in reads] == list(facts)
    assert result.evidence["doc_ids"][0].startswith(f"{q.gold.game_id}_")
    assert result.evidence["clip_ids"] and result.status == "answered"


@pytest.fixture(scope="module")
def clipless(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Corpus, ToolContext]]:
    """One soccer game with documents and no clips (as a small corpus' later games are)."""
    from playscout.synthetic import generate_corpus

    root = tmp_path_factory.mktemp("clipless") / "corpus"
    generate_corpus(root, games=1, sports=["soccer"], seed=1, workers=1, clip_games=0)
    backend = index_corpus(root, root.parent / "index", sports=["soccer"])
    yield Corpus(root), ToolContext(backend=backend, sport="soccer", mode="oracle")


def _doc(corpus: Corpus, game: str, doc_type: str) -> Any:
    return next(d for d in corpus.game_documents("soccer", game) if d.doc_type == doc_type)


def _info(corpus: Corpus) -> Any:
    game = corpus.games_in_order("soccer")[0]
    info = corpus.game_info("soccer", game)
    assert info is not None and corpus.clips_file("soccer", game) is None
    return game, info


def test_play_question_on_a_game_without_clips_says_why_it_has_no_answer(
    clipless: tuple[Corpus, ToolContext],
) -> None:
    corpus, ctx = clipless
    game, _ = _info(corpus)
    row = next(
        r for r in stat_rows(_doc(corpus, game, "game_stat_player").text) if r.counts.get("passes")
    )
    question = (
        f"In the game where {row.name} finished with {row.counts['passes']} passes, what kind of "
        f"play led to {row.name}'s first shot of the 1st half?"
    )
    result = Agent(ctx, tools=ALL_TOOLS, policy="workflow").run_sync(question)
    assert result.status == "no_answer"
    assert result.answer == (
        f"No answer: I found no evidence that answers this (search_videos found no clips of "
        f"game {game})."
    )
    assert result.evidence["doc_ids"][0].startswith(f"{game}_")


def test_document_question_on_a_game_without_clips_is_answered_from_documents(
    clipless: tuple[Corpus, ToolContext],
) -> None:
    corpus, ctx = clipless
    game, info = _info(corpus)
    team = _doc(corpus, game, "game_stat_team")
    finals = [r.counts["goals"] for r in stat_rows(team.text) if r.name == "Final"]
    question = (
        f"What was the final score of the {info.date} game between {info.home_team} and "
        f"{info.away_team}?"
    )
    result = Agent(ctx, tools=ALL_TOOLS, policy="workflow").run_sync(question)
    assert result.status == "answered"
    assert result.answer == f"{info.home_team} {finals[0]}-{finals[1]} {info.away_team}"
    assert result.evidence["source"][0].startswith(f"{game}_game_stat_team (document_qa): ")
    assert "search_videos" not in [e.name for e in result.events if e.type == "tool_call"]


def test_a_record_is_read_for_the_team_asked_about_however_it_is_named() -> None:
    route = route_question("What was Buffalo's record after their 2023-04-05 game against Arizona?")
    passage = "The Buffalo Sabres held off the Arizona Coyotes 2-1 on the road."
    evidence = f"{passage} | The Sabres improved to 1-4, while the Coyotes fell to 4-1."
    teams = {"Buffalo Sabres", "Arizona Coyotes"}
    assert short_answer(route, passage, teams, evidence) == "1-4"
    other = route_question("What was the Coyotes' record after their game against Buffalo?")
    assert short_answer(other, passage, teams, evidence) == "4-1"
