"""`index videos` end to end on rendered broadcasts: clips in the T9 layout that the loader, the
index and default-mode search use unchanged; and bad input that leaves the corpus untouched."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest

from playscout.corpus import Corpus
from playscout.corpus.pbp import dump_pbp, load_pbp
from playscout.indexer.video.errors import NoScoreboardError, PlayByPlayMismatchError
from playscout.indexer.video.pipeline import VideoIndexOptions, index_videos
from playscout.media.errors import BrokenVideoError, VideoError
from playscout.synthetic.broadcast import render_corpus
from tests.synthdata import make_corpus

from .conftest import write_shots_video

pytestmark = pytest.mark.slow
EXCERPT_S = 75.0


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two basketball excerpts (with commentary) and their play-by-play, from a basketball-only
    corpus of its own (the shared one has a single basketball game)."""
    root = tmp_path_factory.mktemp("render")
    make_corpus(root / "synth", games=8, seed=2, sports=["basketball"], questions=0)
    render_corpus(root / "synth", root / "videos", games=2, start=0.0, duration=EXCERPT_S)
    return root / "videos"


@pytest.fixture(scope="module")
def tiny_clip(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from playscout.embed.open_clip import make_tiny_weights

    path = tmp_path_factory.mktemp("clip") / "tiny.pt"
    make_tiny_weights(path, seed=0)
    return {"kind": "open_clip", "model": "playscout-tiny", "options": {"pretrained": str(path)}}


@pytest.fixture(scope="module")
def indexed(
    rendered: Path, tiny_clip: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Any]:
    corpus = tmp_path_factory.mktemp("corpus") / "c"
    summary = index_videos(
        rendered, rendered / "pbp.json", corpus, VideoIndexOptions(visual_model=tiny_clip)
    )
    return corpus, summary


def _tree(root: Path) -> dict[str, tuple[int, int]]:
    if not root.exists():
        return {}
    return {
        str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_games_become_t9_clips_the_loader_reads(indexed: tuple[Path, Any], rendered: Path) -> None:
    corpus_dir, summary = indexed
    corpus = Corpus(corpus_dir)
    assert corpus.sports() == ["basketball"]
    assert len(summary.games) == 2
    for game in summary.games:
        clips = corpus.clips_of_game("basketball", game.game_id)
        assert len(clips) == game.clips >= 4
        for clip in clips:
            assert 7.5 <= clip.video_end - clip.video_start <= 15.5
            path = corpus.clip_path("basketball", clip.clip_id)
            assert path is not None and path.is_file() and path.stat().st_size > 1000
            assert clip.period == 1  # an opening excerpt
            assert 0 <= clip.clock_remaining_end <= clip.clock_remaining_start <= 720
        truth = orjson.loads((rendered / f"{game.game_id}.truth.json").read_bytes())
        # every event inside the excerpt lands in the clip whose window holds its true time
        windows = corpus.clips_file("basketball", game.game_id)
        assert windows is not None
        owner = {eid: w for w in windows.windows.values() for eid in w.event_ids}
        inside = [e for e in truth["events"] if 1.0 < e["video_time"] < EXCERPT_S - 1.0]
        hits = 0
        for e in inside:
            w = owner.get(e["event_id"])
            if (
                w is not None
                and w.video_window.start - 1 <= e["video_time"] <= w.video_window.end + 1
            ):
                hits += 1
        assert inside and hits / len(inside) >= 0.95
        assert game.stages.seconds["scoreboard"] > 0 and game.stages.seconds["cut"] > 0


def test_commentary_is_transcribed_into_clips(indexed: tuple[Path, Any]) -> None:
    corpus_dir, summary = indexed
    clips = list(Corpus(corpus_dir).iter_clips("basketball"))
    heard = [c for c in clips if c.transcript]
    assert sum(g.transcribed_clips for g in summary.games) == len(heard) >= 2


def test_default_mode_search_runs_on_the_indexed_video(
    indexed: tuple[Path, Any], tmp_path: Path
) -> None:
    from playscout.indexer.build import build_from_corpus
    from playscout.search import open_backend

    corpus_dir, _ = indexed
    vectors = corpus_dir / "embeds" / "videos"
    assert (vectors / "embedder.json").is_file()
    build_from_corpus(
        corpus_dir,
        tmp_path / "idx",
        doc_embedder=None,
        caption_embedder=None,
        video_vectors=vectors,
    )
    backend = open_backend(tmp_path / "idx")
    assert "visual" in backend.channels("basketball")
    clip = next(c for c in Corpus(corpus_dir).iter_clips("basketball") if c.transcript)
    word = max(clip.transcript.split(), key=len).strip(".,!?")
    heard = backend.search_clips("basketball", word, channel="visual", mode="bm25", top_k=5)
    assert word.lower() in heard[0].record.transcript.lower()
    hybrid = backend.search_clips("basketball", word, channel="visual", top_k=5)
    assert hybrid and hybrid[0].scores.dense is not None  # the open_clip text tower ran
    seen = backend.search_clips(
        "basketball", "players on the court", channel="visual", mode="dense", top_k=500
    )
    assert {h.clip_id for h in seen} == {
        c.clip_id for c in Corpus(corpus_dir).iter_clips("basketball")
    }


def test_existing_games_need_overwrite(indexed: tuple[Path, Any], rendered: Path) -> None:
    corpus_dir, _ = indexed
    before = _tree(corpus_dir)
    with pytest.raises(VideoError, match="already in the corpus"):
        index_videos(rendered, rendered / "pbp.json", corpus_dir, VideoIndexOptions(speech=False))
    assert _tree(corpus_dir) == before


def test_a_corpus_with_video_vectors_needs_them_for_new_clips(
    indexed: tuple[Path, Any], rendered: Path
) -> None:
    corpus_dir, _ = indexed
    before = _tree(corpus_dir)
    opts = VideoIndexOptions(speech=False, overwrite=True)  # no visual model
    with pytest.raises(VideoError, match="pass --visual-model"):
        index_videos(rendered, rendered / "pbp.json", corpus_dir, opts)
    assert _tree(corpus_dir) == before


def _one_game_pbp(rendered: Path, tmp: Path, game_index: int, **changes: Any) -> Path:
    game = load_pbp(rendered / "pbp.json")[game_index].model_dump(mode="json")
    game.update(changes)
    path = tmp / "pbp.json"
    path.write_bytes(dump_pbp([game]))
    return path


@pytest.mark.parametrize("case", ["broken", "no_scoreboard", "mismatch"])
def test_bad_input_is_one_line_and_leaves_the_corpus_unchanged(
    case: str,
    indexed: tuple[Path, Any],
    rendered: Path,
    tiny_clip: dict[str, Any],
    tmp_path: Path,
) -> None:
    corpus_dir, _ = indexed
    games = load_pbp(rendered / "pbp.json")
    videos = tmp_path / "videos"
    videos.mkdir()
    new_id = "999001"
    if case == "broken":
        data = (rendered / f"{games[0].game_id}.mp4").read_bytes()
        (videos / f"{new_id}.mp4").write_bytes(data[: len(data) // 50])
        error: type[Exception] = BrokenVideoError
    elif case == "no_scoreboard":
        write_shots_video(videos / f"{new_id}.mp4", [(90, 60, 30), (20, 90, 40)], [6, 6])
        error = NoScoreboardError
    else:  # the play-by-play of game 1 with the video of game 0
        shutil.copy(rendered / f"{games[0].game_id}.mp4", videos / f"{new_id}.mp4")
        error = PlayByPlayMismatchError
    source = 1 if case == "mismatch" else 0
    pbp = _one_game_pbp(rendered, tmp_path, source, game_id=new_id, video=f"{new_id}.mp4")
    before = _tree(corpus_dir)
    with pytest.raises(error) as info:
        index_videos(
            videos, pbp, corpus_dir, VideoIndexOptions(speech=False, visual_model=tiny_clip)
        )
    message = str(info.value)
    assert "\n" not in message and len(message) < 300
    assert _tree(corpus_dir) == before
    assert not list(corpus_dir.parent.glob(".c.staging-*"))
