"""add_documents: a corpus built from video (clips of an excerpt only, as `index videos` writes
it) gets its games' documents from the synthetic corpus, and T9 questions generated on the
result point at the excerpt's clips only."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from playscout.cli.main import app
from playscout.corpus import Corpus
from playscout.corpus.errors import CorpusError
from playscout.corpus.merge import add_documents
from playscout.corpus.models import GAME_DOC_TYPES
from playscout.synthetic import generate_questions

SPORT = "basketball"
EXCERPT_S = 600.0  # the first ten minutes of video were "rendered"


def video_corpus(source: Corpus, root: Path) -> tuple[Path, set[str]]:
    """What `index videos` leaves for an excerpt: clips metadata (windows that start in the
    excerpt), clip paths, play-by-play and game info; no documents, no questions."""
    (game_id,) = source.games(SPORT)
    src, dst = source.sport_dir(SPORT), root / "data" / SPORT
    files = source.game_files(SPORT, game_id)
    clips = json.loads((src / str(files.clips_metadata)).read_text())
    clips["windows"] = {
        k: w for k, w in clips["windows"].items() if w["video_window"]["start"] < EXCERPT_S
    }
    meta = {}
    for key in ("clips_metadata", "clip_paths", "game_info", "play_by_play"):
        rel = str(getattr(files, key))
        (dst / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src / rel, dst / rel)
        meta[key] = rel
    (dst / str(files.clips_metadata)).write_text(json.dumps(clips))
    (dst / "metadata.json").write_text(json.dumps({game_id: meta}))
    return root, set(clips["windows"])


def test_documents_are_added_and_questions_stay_in_the_excerpt(
    synth_corpus: Corpus, tmp_path: Path
) -> None:
    target, excerpt = video_corpus(synth_corpus, tmp_path / "video")
    before = (target / "data" / SPORT / "games").rglob("clips_metadata.json")
    clips_before = {p: p.read_bytes() for p in before}
    (added,) = add_documents(synth_corpus.root, target)
    merged = Corpus(target)
    (game_id,) = merged.games(SPORT)
    for key in GAME_DOC_TYPES:
        theirs, ours = (
            synth_corpus.game_path(SPORT, game_id, key),
            merged.game_path(SPORT, game_id, key),
        )
        assert theirs is not None and ours is not None
        assert ours.read_text() == theirs.read_text()
    season_docs = list(synth_corpus.season_documents(SPORT))
    assert added.game_documents == len(GAME_DOC_TYPES) and added.games == 1
    assert added.season_documents == len(season_docs) > 0
    assert [d.doc_id for d in merged.season_documents(SPORT)] == [d.doc_id for d in season_docs]
    assert {p: p.read_bytes() for p in clips_before} == clips_before  # clips untouched

    counts = generate_questions(target, per_sport=5, seed=1, sports=[SPORT])
    questions = merged.questions(SPORT)
    assert counts[SPORT] == len(questions) > 0
    windows = merged.clips_file(SPORT, game_id)
    assert windows is not None
    for q in questions:
        assert q.gold is not None and set(q.gold.clip_ids) <= excerpt, q.question
        assert all(windows.windows[c].event_ids for c in q.gold.clip_ids)

    again = add_documents(synth_corpus.root, target)  # documents it has are kept, not copied
    assert again[0].game_documents == 0 and again[0].season_documents == 0


def test_bad_sources_are_one_line_errors(synth_corpus: Corpus, tmp_path: Path) -> None:
    target, _ = video_corpus(synth_corpus, tmp_path / "video")
    with pytest.raises(CorpusError, match=r"^.*: source and target are the same corpus$"):
        add_documents(target, target)
    other = tmp_path / "other"
    (other / "data" / SPORT).mkdir(parents=True)
    (other / "data" / SPORT / "metadata.json").write_text("{}")
    with pytest.raises(CorpusError, match=r"no basketball game\(s\) \d+ to take documents from"):
        add_documents(other, target)
    runner = CliRunner()
    res = runner.invoke(app, ["corpus", "add-documents", "--from", str(other), "--to", str(target)])
    assert res.exit_code == 2
    (line,) = res.output.strip().splitlines()
    assert line.startswith(f"error: {other}") and "no basketball game(s)" in line


def test_a_corpus_error_without_a_file_is_its_message() -> None:
    assert str(CorpusError("corpus directory does not exist")) == "corpus directory does not exist"
