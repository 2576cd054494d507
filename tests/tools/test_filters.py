from __future__ import annotations

import pytest

from playscout.tools.entities import EntityResolver
from playscout.tools.filters import (
    expand_doc_types,
    parse_boundary,
    parse_date,
    parse_season,
    restrict_doc_types,
)
from playscout.tools.tool import ToolError

TEAMS = ["Charlotte Hornets", "Los Angeles Lakers", "Los Angeles Clippers", "Philadelphia 76ers"]
PLAYERS = ["Stephen Curry", "Seth Curry", "Kemba Walker", "Terry Rozier"]


@pytest.fixture()
def resolver() -> EntityResolver:
    return EntityResolver("basketball", TEAMS, PLAYERS, cutoff=0.86)


def test_exact_names_resolve_silently(resolver: EntityResolver) -> None:
    r = resolver.resolve("team", "charlotte hornets")
    assert r.matches == ["Charlotte Hornets"] and r.note() is None


def test_alias_and_name_part_are_reported(resolver: EntityResolver) -> None:
    sixers = resolver.resolve("team", "Sixers")
    assert sixers.matches == ["Philadelphia 76ers"]
    assert sixers.note() == "team 'Sixers' resolved to 'Philadelphia 76ers' (alias)"
    city = resolver.resolve("team", "Charlotte")
    assert city.matches == ["Charlotte Hornets"] and "name part" in (city.note() or "")


def test_ambiguous_name_keeps_every_match_and_says_so(resolver: EntityResolver) -> None:
    curry = resolver.resolve("player", "Curry")
    assert curry.matches == ["Stephen Curry", "Seth Curry"]
    assert "ambiguous: 2 matches" in (curry.note() or "")
    la = resolver.resolve("team", "Los Angeles")
    assert len(la.matches) == 2


def test_fuzzy_typo_resolves_with_score(resolver: EntityResolver) -> None:
    r = resolver.resolve("player", "Kemba Walkr")
    assert r.matches == ["Kemba Walker"] and r.method == "fuzzy"
    assert "fuzzy 0.9" in (r.note() or "")


def test_far_names_stay_unresolved_with_suggestions(resolver: EntityResolver) -> None:
    r = resolver.resolve("player", "Kobe Bryant")
    assert not r.resolved
    assert "matches no known player" in (r.note() or "")
    # 'Curri' is close to both Currys: a fuzzy pick between near-equal candidates is refused.
    assert resolver.resolve("player", "S. Curri").method in ("unresolved", "fuzzy")


def test_alias_of_a_team_missing_from_the_index_does_not_apply() -> None:
    r = EntityResolver("basketball", ["Charlotte Hornets"], [], 0.86).resolve("team", "sixers")
    assert not r.resolved


def test_doc_type_families_and_unknown_types() -> None:
    assert expand_doc_types("statistics") == ["game_stat_player", "game_stat_team"]
    assert expand_doc_types("game_report") == ["espn_report"]
    assert expand_doc_types(["season_statistics", "season_stat_team"]) == [
        "season_stat_player",
        "season_stat_team",
    ]
    assert expand_doc_types(None) is None
    with pytest.raises(ToolError, match="unknown doc_type 'recap'"):
        expand_doc_types("recap")


def test_filter_doc_type_rules() -> None:
    types, dropped, notes = restrict_doc_types(None, ["players"])
    assert types == ["game_stat_player", "season_stat_player"] and not dropped and notes
    types, dropped, _ = restrict_doc_types(["espn_report"], ["date"])
    assert types == ["espn_report"] and dropped == {"date"}
    types, dropped, _ = restrict_doc_types(None, ["players", "date"])
    assert types == ["game_stat_player"] and not dropped


def test_dates() -> None:
    assert parse_date("2019-01-12", None) == ("2019-01-12", "2019-01-12")
    assert parse_date("2019-01-01..2019-01-31", None) == ("2019-01-01", "2019-01-31")
    assert parse_date("2019-01-01..", None) == ("2019-01-01", None)
    assert parse_date("..2019-01-31", None) == (None, "2019-01-31")
    assert parse_date("12-20..01-10", 2019) == ("2018-12-20", "2019-01-10")
    for bad, msg in (
        ("12-20..01-10", "add season"),
        ("2019-02-30", "calendar"),
        ("yesterday", "YYYY-MM-DD"),
        ("2019-02-01..2019-01-01", "ends before"),
    ):
        with pytest.raises(ToolError, match=msg):
            parse_date(bad, None)


def test_season_and_boundary() -> None:
    assert parse_season("2018-19") == 2019
    assert parse_season("18-19") == 2019
    assert parse_season(2021) == 2021
    with pytest.raises(ToolError):
        parse_season("last year")
    assert parse_boundary("100.5-120.0") == (100.5, 120.0)
    assert parse_boundary(None) == (None, None)
    with pytest.raises(ToolError, match="START-END"):
        parse_boundary("100 to 120")
    with pytest.raises(ToolError, match="ends before"):
        parse_boundary("120-100")
