"""Sports are data: each sport is one SportSpec, and shared code never branches on a sport's name,
so a sport registered under a new name runs through every stage unchanged."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from playscout.corpus.match_state import period_label
from playscout.corpus.sports import sport, sport_names
from playscout.synthetic import generate_corpus, generate_questions
from playscout.synthetic.sports import SPECS, spec_names
from tests.futsal import registered

SYNTHETIC = Path(__file__).resolve().parents[2] / "playscout" / "synthetic"


def test_registry_matches_corpus_sports_and_scoreboards() -> None:
    assert spec_names() == sport_names() == ("basketball", "hockey", "soccer")
    for name, spec in SPECS.items():
        assert spec.name == name
        assert spec.record is sport(name) and spec.board is sport(name).board


def test_shared_code_names_no_sport() -> None:
    """Only the sport packages spell a sport's name; everything else reads the spec."""
    alts = "|".join(SPECS)
    names = re.compile(rf'"(?:{alts})"')
    offenders = [
        str(p.relative_to(SYNTHETIC))
        for p in SYNTHETIC.rglob("*.py")
        if "sports" not in p.relative_to(SYNTHETIC).parts and names.search(p.read_text())
    ]
    assert offenders == []


def test_scoreboard_labels_come_from_the_board() -> None:
    assert [period_label("basketball", p) for p in (1, 4, 5, 6)] == ["Q1", "Q4", "OT", "2OT"]
    assert [period_label("hockey", p) for p in (1, 2, 3, 4, 5)] == [
        "1ST",
        "2ND",
        "3RD",
        "OT",
        "2OT",
    ]
    assert [period_label("soccer", p) for p in (1, 2, 3, 4)] == ["1H", "2H", "ET1", "ET2"]


@pytest.fixture
def futsal() -> Iterator[str]:
    """A fourth sport: its own record, and a generator built from soccer's parts."""
    with registered() as name:
        yield name


def test_a_new_sport_is_one_spec(futsal: str, tmp_path: Path) -> None:
    av = pytest.importorskip("av")
    from playscout.synthetic.broadcast import render_game

    summary = generate_corpus(tmp_path, 4, sports=[futsal], seed=5, workers=1)
    assert summary.sports[futsal].games == 4
    d = tmp_path / "data" / futsal
    meta = orjson.loads((d / "metadata.json").read_bytes())
    assert len(meta) == 4
    files = next(iter(meta.values()))
    assert "Scoring by half" in (d / files["game_stat_team"]).read_text()
    generate_questions(tmp_path, 2, seed=5, sports=[futsal])
    assert (tmp_path / "questions" / f"{futsal}.json").exists()

    pbp = orjson.loads((d / files["play_by_play"]).read_bytes())
    res = render_game(
        pbp, tmp_path / "video", duration=2.0, fps=5, size=(128, 72), commentary=False
    )
    with av.open(res.video) as c:
        assert sum(1 for _ in c.decode(c.streams.video[0])) == 10
