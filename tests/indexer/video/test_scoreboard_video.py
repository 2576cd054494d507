"""Scoreboard reading and play-by-play alignment on real rendered broadcasts (H.264 MP4 with
camera cuts, replays with hidden or stale scoreboards, sponsor banners over the scoreboard)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pytest

from playscout.corpus.pbp import PbpGame, load_pbp
from playscout.indexer.video.errors import NoScoreboardError, PlayByPlayMismatchError
from playscout.media.errors import BrokenVideoError
from tests.synthdata import make_corpus

av = pytest.importorskip("av")
pytest.importorskip("rapidocr_onnxruntime")

from playscout.indexer.video.scoreboard import (  # noqa: E402
    AlignmentResult,
    StateTimeline,
    align_events,
    evaluate_alignment,
    read_scoreboard,
)
from playscout.synthetic.broadcast import render_game  # noqa: E402
from playscout.synthetic.broadcast.plan import REPLAY, plan_broadcast  # noqa: E402
from playscout.synthetic.broadcast.timeline import GameClock  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Its own corpus: a second basketball game is needed (the shared corpus has one)."""
    return make_corpus(tmp_path_factory.mktemp("synth"), games=7, seed=1, questions=0)


def _pbp(corpus: Path, sport: str, k: int = 0) -> dict[str, Any]:
    path = sorted((corpus / "data" / sport / "games").glob("*/play_by_play.json"))[k]
    return orjson.loads(path.read_bytes())


def _window(pbp: dict[str, Any], length: float) -> float:
    """Start of the first window holding a stale-scoreboard replay and a sponsor banner, with
    play (and a free-throw or goal stoppage) around them."""
    plan = plan_broadcast(GameClock(pbp), 0, pbp["game_id"])
    stale = [s for s in plan.segments if s.kind == REPLAY and s.stale]
    for s in stale:
        t = max(0.0, s.t0 - length / 3)
        if any(t < a.t0 and a.t1 < t + length for a in plan.ads):
            return float(t)
    raise AssertionError("no window with a stale replay and a sponsor banner")


@pytest.fixture(scope="module")
def excerpt(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    pbp = _pbp(corpus, "basketball")
    out = tmp_path_factory.mktemp("render")
    res = render_game(pbp, out, start=_window(pbp, 150.0), duration=150.0, seed=0, commentary=False)
    truth = orjson.loads(Path(res.truth).read_bytes())
    game = load_pbp(res.pbp)[0]
    timeline = read_scoreboard(res.video, "basketball")
    return {"res": res, "truth": truth, "game": game, "timeline": timeline}


def test_locates_the_scoreboard_and_its_fields(excerpt: dict[str, Any]) -> None:
    tl: StateTimeline = excerpt["timeline"]
    x, y, w, h = excerpt["truth"]["scoreboard_box"]
    b = tl.layout.box
    inter = max(0, min(b.x1, x + w) - max(b.x0, x)) * max(0, min(b.y1, y + h) - max(b.y0, y))
    union = b.width * b.height + w * h - inter
    assert inter / union > 0.8, (b, excerpt["truth"]["scoreboard_box"])
    cx, _, cw, _ = excerpt["truth"]["scoreboard_fields"]["clock"]
    assert b.x0 <= cx and cx + cw <= b.x1 + 4
    assert (tl.layout.home_code, tl.layout.away_code) == excerpt["game"].codes()
    assert tl.layout.order == [
        "home_code",
        "home_score",
        "away_code",
        "away_score",
        "period",
        "clock",
    ]


def test_reads_and_aligns_an_excerpt_with_replays_and_ads(excerpt: dict[str, Any]) -> None:
    tl: StateTimeline = excerpt["timeline"]
    truth = excerpt["truth"]
    assert any(r["stale"] for r in truth["replay_details"]) and truth["ad_details"]
    result = align_events(tl, excerpt["game"])
    ev = evaluate_alignment(result, truth, tl)
    assert ev["events"] >= 15
    assert ev["within_1s"] >= 0.99, ev["misses"]
    assert ev["state_accuracy"] >= 0.99 and ev["reading_accuracy"] >= 0.97
    st = tl.stats
    assert st.readings_rejected > 0  # the stale replay's scoreboard
    assert st.crops_occluded > 0  # banner, replay wipes
    assert st.crops_unchanged > st.crops_ocr  # most frames need no OCR at all
    assert st.frames_sampled == pytest.approx(tl.duration * 5, rel=0.02)
    again = StateTimeline.model_validate_json(tl.model_dump_json())  # serialisable
    assert again.segments == tl.segments
    # the result alone (as written to disk) carries the scoreboard track
    back = AlignmentResult.model_validate_json(result.model_dump_json())
    assert evaluate_alignment(back, truth)["state_accuracy"] >= 0.99


def test_soccer_counts_up(corpus: Path, tmp_path: Path) -> None:
    pbp = _pbp(corpus, "soccer")
    res = render_game(pbp, tmp_path, start=1500.0, duration=40.0, seed=0, commentary=False)
    tl = read_scoreboard(res.video, "soccer")
    ev = evaluate_alignment(align_events(tl, load_pbp(res.pbp)[0]), res.truth, tl)
    assert ev["state_accuracy"] >= 0.99
    assert ev["events"] == 0 or ev["within_1s"] >= 0.99, ev["misses"]
    clocks = [c.clock for c in tl.clocks]
    assert clocks == sorted(clocks) and len(clocks) >= 10  # elapsed time, counting up


def test_another_games_play_by_play_is_a_mismatch(excerpt: dict[str, Any], corpus: Path) -> None:
    other = PbpGame.model_validate(_pbp(corpus, "basketball", 1))
    assert other.codes() != excerpt["game"].codes()
    with pytest.raises(PlayByPlayMismatchError, match="scoreboard shows"):
        align_events(excerpt["timeline"], other)
    # the same teams but scores the screen never shows
    data = excerpt["game"].model_dump()
    for e in data["events"]:
        e["home_score"] += 7
    with pytest.raises(PlayByPlayMismatchError, match="do not match"):
        align_events(excerpt["timeline"], PbpGame.model_validate(data))


def _noise_video(path: Path, seconds: float = 4.0) -> Path:
    rng = np.random.default_rng(0)
    with av.open(str(path), "w") as out:
        s = out.add_stream("libx264", rate=25)
        s.width, s.height, s.pix_fmt = 320, 180, "yuv420p"
        s.options = {"preset": "ultrafast"}
        for i in range(int(seconds * 25)):
            img = rng.integers(0, 256, (180, 320, 3), dtype=np.uint8)
            f = av.VideoFrame.from_ndarray(img, format="rgb24")
            f.pts, f.time_base = i, Fraction(1, 25)
            for p in s.encode(f):
                out.mux(p)
        for p in s.encode():
            out.mux(p)
    return path


def test_no_scoreboard_in_noise(tmp_path: Path) -> None:
    path = _noise_video(tmp_path / "noise.mp4")
    with pytest.raises(NoScoreboardError, match=r"noise\.mp4"):
        read_scoreboard(path, "hockey")


def test_broken_files(tmp_path: Path, excerpt: dict[str, Any]) -> None:
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"\x00\x01not a video" * 100)
    with pytest.raises(BrokenVideoError, match=r"junk\.mp4"):
        read_scoreboard(junk, "basketball")
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(Path(excerpt["res"].video).read_bytes()[:20_000])
    with pytest.raises(BrokenVideoError, match=r"cut\.mp4"):
        read_scoreboard(cut, "basketball")
    with pytest.raises(BrokenVideoError, match="not found"):
        read_scoreboard(tmp_path / "missing.mp4", "basketball")
