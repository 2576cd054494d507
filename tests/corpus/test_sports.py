"""A sport is one record, looked up by name: the built-in sports are found by scanning
playscout/corpus/sports/, and an unknown sport fails at that lookup in one line at every site
that needs a sport fact, never with another sport's facts or a default."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest

from playscout.corpus.match_state import parse_period, period_label, remaining_and_elapsed
from playscout.corpus.sports import (
    SPORTS,
    UnknownSport,
    period_words,
    periods_phrase,
    register_sport,
    sport,
    sport_names,
    sport_of_league,
)
from tests.futsal import RECORD, registered

UNKNOWN = f"unknown sport 'curling'; known: {', '.join(sport_names())}"


def test_builtin_records_are_the_table() -> None:
    assert sport_names() == tuple(sorted(SPORTS.builtins))
    assert {"basketball", "hockey", "soccer"} <= set(sport_names())
    assert [sport(s).name for s in sport_names()] == list(sport_names())
    assert period_words() == {"basketball": "quarter", "hockey": "period", "soccer": "half"}
    assert periods_phrase() == "quarter (basketball), period (hockey) or half (soccer)"
    assert sport_of_league("NHL") == "hockey" and sport_of_league("LaLiga") == "soccer"
    assert sport_of_league("MLB") is None


def test_an_unknown_sport_fails_in_one_line() -> None:
    with pytest.raises(UnknownSport) as e:
        sport("curling")
    assert str(e.value) == UNKNOWN
    for call in (
        lambda: period_label("curling", 1),
        lambda: parse_period("curling", "Q1"),
        lambda: remaining_and_elapsed("curling", 1, 60),
    ):
        with pytest.raises(UnknownSport, match=f"^{UNKNOWN}$"):
            call()


def test_sites_that_read_sport_facts_fail_instead_of_defaulting() -> None:
    """The judge's coverage rubric, team aliases, the T5 cutoff and margins, the synthetic
    generator: each fails on an unknown sport (before: basketball's rubric, no aliases,
    cutoff 2)."""
    from playscout.eval.judging.criteria import CriteriaJudge
    from playscout.eval.tasks.t5 import _cutoff
    from playscout.synthetic.sports import SPECS
    from playscout.tools.entities import EntityResolver
    from tests.doubles import ScriptedChatModel

    judge = CriteriaJudge(ScriptedChatModel(["Overall Score: 1/1"]))
    with pytest.raises(UnknownSport, match=f"^{UNKNOWN}$"):
        asyncio.run(judge.coverage("curling", ["a fact"], "a report"))
    with pytest.raises(UnknownSport, match=f"^{UNKNOWN}$"):
        EntityResolver("curling", ["A Team"], [], 0.86)
    with pytest.raises(UnknownSport, match=f"^{UNKNOWN}$"):
        _cutoff("curling")
    with pytest.raises(UnknownSport, match=f"^{UNKNOWN}$"):
        SPECS["curling"]
    assert "curling" not in SPECS


def test_a_registered_sport_is_known_everywhere_then_gone() -> None:
    with registered() as name:
        assert sport(name) is RECORD and name in sport_names()
        assert period_label(name, 3) == "ET1"
        assert periods_phrase().endswith("half (futsal), period (hockey) or half (soccer)")
        with pytest.raises(ValueError, match="already registered"):
            register_sport(dataclasses.replace(RECORD, lead_stat="fouls"))
    with pytest.raises(UnknownSport, match=r"^unknown sport 'futsal'; known: basketball, hockey"):
        sport(name)


def test_cli_error_for_an_unknown_sport_is_one_line(tmp_path: Path) -> None:
    """An unknown sport reaches the user as `error: <one line>` (exit 2), not a traceback."""
    from typer.testing import CliRunner

    from playscout.cli.main import app

    args = ["corpus", "synth", "--out", str(tmp_path / "c"), "--sports", "curling", "--games", "2"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2, res.output
    assert f"error: {UNKNOWN}" in " ".join(res.output.split())
    assert "Traceback" not in res.output


def test_synthetic_has_no_import_circle() -> None:
    """No module of playscout.synthetic imports itself back through others (grimp's graph,
    the one import-linter checks, TYPE_CHECKING imports included)."""
    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph("playscout", cache_dir=None)
    mods = {m for m in graph.modules if m.startswith("playscout.synthetic")}
    deps = {m: graph.find_modules_directly_imported_by(m) & mods for m in mods}
    assert len(mods) > 30
    for m in sorted(mods):
        for d in deps[m]:
            assert not graph.chain_exists(importer=d, imported=m), f"{m} <-> {d}"
