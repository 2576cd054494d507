"""search_documents / search_videos through the registry, on a real index of a synthetic corpus."""

from __future__ import annotations

from typing import Any

import pytest

from playscout.corpus import Corpus
from playscout.search.embedded import EmbeddedBackend
from playscout.tools import SEARCH_TOOLS, ToolContext, ToolResult, call_tool

TOOLS = {t.name: t for t in SEARCH_TOOLS}


def run(
    backend: EmbeddedBackend, name: str, args: Any, mode: str = "oracle", sport: str = "basketball"
) -> ToolResult:
    ctx = ToolContext(backend=backend, sport=sport, mode=mode)  # type: ignore[arg-type]
    return call_tool(TOOLS, ctx, name, args)


def a_game(corpus: Corpus, sport: str = "basketball") -> tuple[str, str, str]:
    game_id = corpus.games_in_order(sport)[0]
    info = corpus.game_info(sport, game_id)
    assert info is not None
    return game_id, info.home_team, info.away_team


def test_team_nickname_filters_and_is_reported(
    synth_backend: EmbeddedBackend, synth_corpus: Corpus
) -> None:
    _, home, _ = a_game(synth_corpus)
    nickname = home.split()[-1]
    r = run(synth_backend, "search_documents", {"query": "won", "teams": [nickname]})
    assert r.error is None, r.observation
    assert r.data.hits and all(home in h.record.teams for h in r.data.hits)
    assert f"team {nickname!r} resolved to {home!r}" in r.observation


def test_game_filter_and_doc_type_family(
    synth_backend: EmbeddedBackend, synth_corpus: Corpus
) -> None:
    game_id, _, _ = a_game(synth_corpus)
    r = run(
        synth_backend,
        "search_documents",
        {"query": "points", "game_ids": game_id, "doc_type": "statistics"},
    )
    assert {h.doc_id for h in r.data.hits} == {
        f"{game_id}_game_stat_player",
        f"{game_id}_game_stat_team",
    }


def test_players_filter_follows_reference_doc_type_rules(
    synth_backend: EmbeddedBackend, synth_corpus: Corpus
) -> None:
    game_id, _, _ = a_game(synth_corpus)
    player = synth_corpus.game_documents("basketball", game_id)[1].players[0]
    r = run(synth_backend, "search_documents", {"query": "points", "players": [player]})
    assert r.data.hits
    assert {h.record.doc_type for h in r.data.hits} <= {"game_stat_player", "season_stat_player"}
    assert all(player in h.record.players for h in r.data.hits)
    assert "players filter applies only to" in r.observation
    dropped = run(
        synth_backend,
        "search_documents",
        {"query": "win", "players": [player], "doc_type": "espn_report"},
    )
    assert "players filter ignored" in dropped.observation
    assert dropped.data.filters.players is None


def test_date_range_is_inclusive(synth_backend: EmbeddedBackend, synth_corpus: Corpus) -> None:
    game_id, _, _ = a_game(synth_corpus)
    info = synth_corpus.game_info("basketball", game_id)
    assert info is not None
    r = run(synth_backend, "search_documents", {"query": "", "date": f"{info.date}..{info.date}"})
    assert r.data.hits and all(h.record.date == info.date for h in r.data.hits)
    assert {h.record.doc_type for h in r.data.hits} <= {"game_stat_player", "game_stat_team"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"query": "x", "date": "last week"}, "is not YYYY-MM-DD"),
        ({"query": "x", "doc_type": "recap"}, "unknown doc_type 'recap'"),
        ({"query": "x", "season": "soon"}, "season 'soon'"),
        ({"query": ""}, "give a query or at least one filter"),
        ({"query": "x", "colour": "red"}, "invalid argument colour"),
        ({"players": ["Zzyzx Qwerty"]}, "no player matches 'Zzyzx Qwerty'"),
    ],
)
def test_bad_document_arguments_are_one_line_errors(
    synth_backend: EmbeddedBackend, args: dict[str, Any], message: str
) -> None:
    r = run(synth_backend, "search_documents", args)
    assert r.error is not None and message in r.error, r.observation
    assert r.observation.startswith("Error: ") and "\n" not in r.observation


def test_unknown_game_is_reported(synth_backend: EmbeddedBackend) -> None:
    r = run(synth_backend, "search_documents", {"query": "win", "game_ids": ["999999"]})
    assert not r.data.hits
    assert "game 999999 does not exist" in r.observation


def test_unresolved_name_with_query_moves_to_query_text(synth_backend: EmbeddedBackend) -> None:
    r = run(synth_backend, "search_documents", {"query": "win", "teams": ["Zzyzx Qwerty"]})
    assert r.error is None
    assert "added to the query text" in r.observation and r.data.query.endswith("Zzyzx Qwerty")


def test_video_filters_and_period_alias(
    synth_backend: EmbeddedBackend, synth_corpus: Corpus
) -> None:
    game_id, _, _ = a_game(synth_corpus)
    r = run(
        synth_backend,
        "search_videos",
        {
            "query": "three-pointer",
            "game_ids": [game_id],
            "period": 3,
            "temporal_boundary": "0-99999",
        },
    )
    assert r.error is None, r.observation
    assert r.data.hits and all(
        h.record.game_id == game_id and h.record.period == 3 for h in r.data.hits
    )
    window = run(
        synth_backend,
        "search_videos",
        {"query": "", "game_ids": [game_id], "temporal_boundary": "600-630"},
    )
    hits = window.data.hits
    assert hits and all(h.record.video_start < 630 and h.record.video_end > 600 for h in hits)
    assert [h.record.video_start for h in hits] == sorted(h.record.video_start for h in hits)


def test_clip_observation_is_compact_and_never_shows_captions(
    synth_backend: EmbeddedBackend, synth_corpus: Corpus
) -> None:
    game_id, _, _ = a_game(synth_corpus)
    r = run(synth_backend, "search_videos", {"query": "made a jump shot", "game_ids": [game_id]})
    lines = r.observation.splitlines()
    assert len(r.data.hits) == 100
    assert len(lines) <= 30 + 4
    assert lines[-1].startswith("+70 more clips: ")
    assert all(h.clip_id in r.observation for h in r.data.hits)
    captions = [c.caption for c in synth_corpus.clips_of_game("basketball", game_id) if c.caption]
    assert not any(c[:40] in r.observation for c in captions)


def test_default_mode_without_video_embeddings_says_so(synth_backend: EmbeddedBackend) -> None:
    r = run(synth_backend, "search_videos", {"query": "dunk"}, mode="default")
    assert r.error is not None and "no video embeddings" in r.error


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"query": "x", "temporal_boundary": "1:00-2:00"}, "temporal_boundary"),
        ({"query": "x", "quarter": "third"}, "invalid argument quarter"),
        ({"query": "", "video_ids": []}, "give a query or at least one filter"),
    ],
)
def test_bad_video_arguments(
    synth_backend: EmbeddedBackend, args: dict[str, Any], message: str
) -> None:
    r = run(synth_backend, "search_videos", args)
    assert r.error is not None and message in r.error, r.observation


def test_registry_errors(synth_backend: EmbeddedBackend) -> None:
    assert "unknown tool 'search_web'" in (run(synth_backend, "search_web", {}).error or "")
    assert (
        run(synth_backend, "search_documents", "{not json").error == "arguments are not valid JSON"
    )
    ok = run(synth_backend, "search_documents", '{"query": "points"}')
    assert ok.error is None and ok.data.hits


def test_unknown_sport_is_an_error_not_a_crash(synth_backend: EmbeddedBackend) -> None:
    r = run(synth_backend, "search_documents", {"query": "goal"}, sport="curling")
    assert r.error is not None and "unknown sport 'curling'" in r.error


def test_schemas_are_generated_from_the_argument_models() -> None:
    schema = TOOLS["search_videos"].schema()
    params = schema["function"]["parameters"]
    assert schema["function"]["name"] == "search_videos"
    assert {"query", "game_ids", "quarter", "teams", "players", "temporal_boundary"} <= set(
        params["properties"]
    )
    assert "title" not in params and all("title" not in p for p in params["properties"].values())


def test_a_tool_that_raises_becomes_an_error_observation(synth_backend: EmbeddedBackend) -> None:
    from playscout.tools import Tool, ToolArgs

    def broken(ctx: ToolContext, args: ToolArgs) -> ToolResult:
        raise KeyError("boom")

    tools = {"broken": Tool("broken", "always fails", ToolArgs, broken)}
    r = call_tool(tools, ToolContext(backend=synth_backend, sport="basketball"), "broken", {})
    assert r.error == "internal error in broken: KeyError: 'boom'"
