from __future__ import annotations

import json
from pathlib import Path

import pytest

from playscout.corpus import Corpus, CorpusError, validate_corpus
from playscout.corpus.models import (
    ClipsFile,
    clock_to_seconds,
    season_code_to_year,
    season_year_to_code,
    split_clip_id,
)
from tests.corpus.minicorpus import write_minicorpus


@pytest.fixture()
def corpus(tmp_path: Path) -> Corpus:
    return Corpus(write_minicorpus(tmp_path))


def test_conventions() -> None:
    assert clock_to_seconds("05:21") == 321.0
    assert clock_to_seconds(None) == -1.0
    assert season_code_to_year("18-19") == 2019
    assert season_year_to_code(2019) == "18-19"
    assert split_clip_id("617912_285") == ("617912", 285)
    assert split_clip_id("a_b_7") == ("a_b", 7)
    with pytest.raises(ValueError):
        split_clip_id("617912")
    with pytest.raises(ValueError):
        clock_to_seconds("5m21")


def test_documents_follow_reference_ids_and_metadata(corpus: Corpus) -> None:
    docs = {d.doc_id: d for d in corpus.iter_documents("basketball")}
    assert set(docs) == {
        "1001_espn_report",
        "1001_game_stat_player",
        "1001_game_stat_team",
        "1002_espn_report",
        "1002_game_stat_player",
        "1002_game_stat_team",
        "player_11_18-19_season_stat_player",
        "team_1_18-19_season_stat_team",
    }
    stat = docs["1001_game_stat_player"]
    assert stat.players == ["Kemba Walker", "Terry Rozier", "Kyrie Irving"]
    assert stat.teams == ["Charlotte Hornets", "Boston Celtics"]
    assert (stat.date, stat.season, stat.home_team) == ("2019-01-12", 2019, "Charlotte Hornets")
    assert docs["1001_game_stat_team"].players == []
    season = docs["player_11_18-19_season_stat_player"]
    assert (season.season, season.entity_name, season.teams) == (
        2019,
        "Kemba Walker",
        ["Charlotte Hornets"],
    )


def test_clips_are_time_ordered_with_oracle_captions(corpus: Corpus) -> None:
    clips = corpus.clips_of_game("basketball", "1001")
    assert [c.clip_id for c in clips] == ["1001_0", "1001_1", "1001_2"]
    last = clips[-1]
    assert last.caption == "Terry Rozier (#3) made a step-back three. Timeout Boston."
    assert (last.clock_remaining_start, last.clock_remaining_end) == (321.0, 309.0)
    assert (last.video_start, last.video_end, last.period) == (800.0, 812.0, 3)
    assert clips[0].caption == ""
    assert (
        corpus.clip_path("basketball", "1001_2")
        == corpus.root / "data/basketball/clips/1001/1001_2.mp4"
    )


def test_questions_accept_reference_shapes(corpus: Corpus) -> None:
    (q,) = corpus.questions("basketball")
    assert (q.id, q.question, q.answer, q.sport) == (
        "7",
        "What move did Rozier use?",
        "step back",
        "basketball",
    )


def test_valid_corpus_validates(corpus: Corpus) -> None:
    report = validate_corpus(corpus.root)
    assert report.ok, report.problems
    assert report.counts["basketball"] == {
        "games": 2,
        "clip_games": 2,
        "clips": 6,
        "clip_files": 0,  # the mini corpus lists clip paths but writes no videos
        "documents": 8,
        "questions": 1,
    }


def test_validate_reads_clip_paths_and_reports_every_bad_entry(tmp_path: Path) -> None:
    root = write_minicorpus(tmp_path / "c")
    paths = root / "data/basketball/clips/1001/clip_paths.json"
    (paths.parent / "1001_0.mp4").write_bytes(b"\0")
    paths.write_text(
        json.dumps(
            {
                "1001_0": "1001_0.mp4",
                "1001_1": None,  # no video for this clip: allowed
                "1001_2": 5,
                "9999_1": [],
                "1001_9": "",
                "1002_0": "../../../../../outside.mp4",
            }
        )
    )
    report = validate_corpus(root)
    problems = sorted(str(p) for p in report.problems)
    file = "data/basketball/clips/1001/clip_paths.json"
    assert problems == [
        f"{file}: 1001_2: expected a clip file path, not 5",
        f'{file}: 1001_9: expected a clip file path, not ""',
        f"{file}: 1002_0: ../../../../../outside.mp4: path leaves the corpus root",
        f"{file}: 9999_1: expected a clip file path, not []",
    ]
    paths.write_text(json.dumps({"1001_0": "1001_0.mp4", "1001_1": None, "1009_4": "x.mp4"}))
    report = validate_corpus(root)
    assert [str(p) for p in report.problems] == [
        "clip_paths of basketball game 1001: 1009_4: 1 clip ids have no clip window"
    ]
    assert report.counts["basketball"]["clip_files"] == 1


def test_validate_reports_every_problem_with_file_and_field(tmp_path: Path) -> None:
    root = write_minicorpus(tmp_path)
    d = root / "data" / "basketball"
    info = d / "games/1001/game_info.json"
    info.write_text(
        json.dumps({"date": "12/01/2019", "season": 2019, "home_team": "A", "away_team": "B"})
    )
    clips = d / "games/1002/clips_metadata.json"
    data = json.loads(clips.read_text())
    data["windows"]["1002_2"]["metadata"]["game_clock_window"]["start_remaining"] = "5m"
    clips.write_text(json.dumps(data))
    (d / "games/1002/espn_report.txt").unlink()
    problems = [str(p) for p in validate_corpus(root).problems]
    assert any("games/1001/game_info.json: date" in p and "YYYY-MM-DD" in p for p in problems), (
        problems
    )
    assert any("1002_2" in p and "MM:SS" in p for p in problems), problems
    assert any("games/1002/espn_report.txt" in p and "not found" in p for p in problems), problems


def test_paths_cannot_leave_the_corpus_root(tmp_path: Path) -> None:
    root = write_minicorpus(tmp_path / "c")
    (tmp_path / "secret.txt").write_text("x")
    meta = root / "data/basketball/metadata.json"
    data = json.loads(meta.read_text())
    data["1001"]["espn_report"] = "../../../secret.txt"
    meta.write_text(json.dumps(data))
    with pytest.raises(CorpusError, match="leaves the corpus root"):
        list(Corpus(root).iter_documents("basketball"))


def test_clip_paths_through_links_and_absolute_paths_cannot_leave_the_root(
    tmp_path: Path,
) -> None:
    """The folder part of a clip path is resolved once per folder; the file and its folder
    are still followed through links, and an absolute path is judged as one."""
    root = write_minicorpus(tmp_path / "c")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside/x.mp4").write_bytes(b"\0")
    clips = root / "data/basketball/clips/1001"
    clips.mkdir(parents=True, exist_ok=True)
    (clips / "inside.mp4").write_bytes(b"\0")
    (clips / "link.mp4").symlink_to(tmp_path / "outside/x.mp4")
    (clips / "dirlink").symlink_to(tmp_path / "outside")
    (clips / "ok.mp4").symlink_to(clips / "inside.mp4")
    corpus = Corpus(root)
    for bad in ("link.mp4", "dirlink/x.mp4", str(tmp_path / "outside/x.mp4"), "/x.mp4"):
        with pytest.raises(CorpusError, match="leaves the corpus root"):
            corpus.resolve(clips, bad)
    assert corpus.resolve(clips, "ok.mp4") == (clips / "inside.mp4").resolve()
    assert corpus.resolve(clips, "sub/../inside.mp4") == (clips / "inside.mp4").resolve()


def test_unknown_sport_and_game_are_one_line_errors(corpus: Corpus, tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="unknown sport 'curling'"):
        corpus.games("curling")
    with pytest.raises(CorpusError, match="unknown game id '999'"):
        corpus.game_files("basketball", "999")
    with pytest.raises(CorpusError, match="does not exist"):
        Corpus(tmp_path / "nope")


def test_broken_json_names_the_file(tmp_path: Path) -> None:
    root = write_minicorpus(tmp_path)
    (root / "data/basketball/metadata.json").write_text("{not json")
    report = validate_corpus(root)
    assert not report.ok
    assert "data/basketball/metadata.json" in str(report.problems[0])
    assert "invalid JSON" in str(report.problems[0])


def test_observed_transcript_and_audio_events_round_trip(tmp_path: Path) -> None:
    """The video indexer writes them into window metadata; T9 release files have neither."""
    root = write_minicorpus(tmp_path)
    clips = root / "data/basketball/games/1001/clips_metadata.json"
    data = json.loads(clips.read_text())
    meta = data["windows"]["1001_1"]["metadata"]
    meta["transcript"] = "Rozier pulls up from deep!"
    meta["audio_events"] = ["crowd cheering", "buzzer"]
    clips.write_text(json.dumps(data))
    assert validate_corpus(root).ok
    by_id = {c.clip_id: c for c in Corpus(root).clips_of_game("basketball", "1001")}
    heard = by_id["1001_1"]
    assert heard.transcript == "Rozier pulls up from deep!"
    assert heard.audio_events == ["crowd cheering", "buzzer"]
    assert heard.observed_text() == "Rozier pulls up from deep! crowd cheering buzzer"
    assert heard.caption  # the oracle caption is still there, separately
    silent = by_id["1001_0"]
    assert (silent.transcript, silent.audio_events, silent.observed_text()) == ("", [], "")
    again = ClipsFile.model_validate_json(ClipsFile.model_validate(data).model_dump_json())
    assert again.windows["1001_1"].metadata.audio_events == ["crowd cheering", "buzzer"]


def test_counts_match_what_the_iterators_yield(tmp_path: Path) -> None:
    """A build's progress totals come from these counts, read from metadata alone."""
    from playscout.synthetic import generate_corpus

    generate_corpus(tmp_path / "c", games=4, sports=["soccer"], seed=1, workers=1, clip_games=1)
    corpus = Corpus(tmp_path / "c")
    assert corpus.document_count("soccer") == sum(1 for _ in corpus.iter_documents("soccer"))
    assert corpus.clip_count("soccer") == sum(1 for _ in corpus.iter_clips("soccer")) > 0
