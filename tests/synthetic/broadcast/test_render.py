"""Synthetic broadcast renderer: real MP4s whose pixels, sound and truth agree with the game."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pytest

from playscout.corpus import Corpus
from playscout.corpus.match_state import team_codes
from playscout.corpus.pbp import load_pbp
from playscout.media.errors import VideoError
from playscout.synthetic.broadcast import RenderError, render_corpus, render_game
from playscout.synthetic.broadcast.commentary import available as espeak_available
from playscout.synthetic.broadcast.plan import BREAK, REPLAY, plan_broadcast
from playscout.synthetic.broadcast.scene import team_colors
from playscout.synthetic.broadcast.scoreboard import ScoreboardPainter
from playscout.synthetic.broadcast.timeline import GameClock, parse_clock

av = pytest.importorskip("av")


@pytest.fixture(scope="session")
def corpus(synth_corpus: Corpus) -> Path:
    """The shared synthetic corpus (tests/conftest.py): one game per sport; read only."""
    return synth_corpus.root


def _game(corpus: Path, sport: str) -> dict[str, Any]:
    path = next((corpus / "data" / sport / "games").glob("*/play_by_play.json"))
    return orjson.loads(path.read_bytes())


def _window(pbp: dict[str, Any], seed: int, length: float) -> float:
    """Start of the first window of `length` s holding a replay, an ad, a break and a cut."""
    plan = plan_broadcast(GameClock(pbp), seed, pbp["game_id"])
    replays = [s for s in plan.segments if s.kind == REPLAY]
    breaks = plan.kinds(BREAK)
    for t in np.arange(0.0, pbp["video_duration"] - length, 5.0):
        e = t + length
        if (
            any(t < s.t0 and s.t1 < e for s in replays)
            and any(t < a.t0 and a.t1 < e for a in plan.ads)
            and any(t < b0 < e for b0, _ in breaks)
            and any(t < c < e for c in plan.cuts)
        ):
            return float(t)
    raise AssertionError("no window with a replay, an ad, a break and a cut")


def _truth(res: Any) -> dict[str, Any]:
    return orjson.loads(Path(res.truth).read_bytes())


def _frames(path: str) -> list[np.ndarray]:
    with av.open(path) as c:
        return [f.to_ndarray(format="rgb24") for f in c.decode(c.streams.video[0])]


def _audio(path: str) -> tuple[np.ndarray, int]:
    with av.open(path) as c:
        s = c.streams.audio[0]
        chunks = [f.to_ndarray().reshape(-1) for f in c.decode(s)]
        return np.concatenate(chunks).astype(np.float32), int(s.rate)


def _state_at(truth: dict[str, Any], t: float) -> list[Any]:
    for row in truth["states"]:
        if row[0] <= t < row[1]:
            return row
    raise AssertionError(f"no state at {t}")


@pytest.fixture(scope="module")
def long_render(
    corpus: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Any, dict[str, Any]]:
    """Two minutes of hockey around a replay, an ad and a break, small and at 10 fps."""
    pbp = _game(corpus, "hockey")
    start = _window(pbp, 0, 120.0)
    res = render_game(
        pbp,
        tmp_path_factory.mktemp("long"),
        start=start,
        duration=120.0,
        fps=10,
        size=(320, 180),
        commentary=espeak_available(),
    )
    return res, pbp


def test_clock_display_matches_every_event(corpus: Path) -> None:
    for sport in ("basketball", "hockey", "soccer"):
        assert GameClock(_game(corpus, sport)).event_mismatches() == []


def test_mp4_streams(long_render: tuple[Any, dict[str, Any]]) -> None:
    res, _ = long_render
    with av.open(res.video) as c:
        v, a = c.streams.video[0], c.streams.audio[0]
        assert v.codec_context.name == "h264"
        assert (v.codec_context.width, v.codec_context.height) == (320, 180)
        assert float(v.average_rate) == 10
        assert a.codec_context.name == "aac" and a.rate == 22050 and a.channels == 1
        assert abs(float(c.duration / av.time_base) - 120.0) < 0.5
    assert len(_frames(res.video)) == res.frames == 1200


def test_truth_states_show_each_event(long_render: tuple[Any, dict[str, Any]]) -> None:
    res, pbp = long_render
    truth = _truth(res)
    rows = truth["states"]
    assert rows[0][0] == 0 and abs(rows[-1][1] - 120.0) < 1e-6
    assert all(abs(a[1] - b[0]) < 1e-3 for a, b in itertools.pairwise(rows))
    assert {r[6] for r in rows} >= {"visible", "hidden", "occluded"}
    by_id = {e["event_id"]: e for e in pbp["events"]}
    last_at: dict[float, dict[str, Any]] = {}
    for e in sorted(pbp["events"], key=lambda e: (e["video_time"], e["event_id"])):
        last_at[e["video_time"]] = e
    assert truth["events"]
    for ev in truth["events"]:
        src = by_id[ev["event_id"]]
        assert abs(ev["video_time"] - (src["video_time"] - res.start)) < 1e-3
        want = last_at[src["video_time"]]
        row = _state_at(truth, ev["video_time"] + 1e-4)
        assert row[2:6] == [
            want["period"],
            parse_clock(want["clock"]),
            want["home_score"],
            want["away_score"],
        ]


def test_scoreboard_pixels_follow_truth(long_render: tuple[Any, dict[str, Any]]) -> None:
    res, pbp = long_render
    truth = _truth(res)
    frames = _frames(res.video)
    codes = team_codes(pbp["home_team"], pbp["away_team"])
    painter = ScoreboardPainter(
        "hockey", (320, 180), codes, team_colors("hockey", pbp["home_team_id"], pbp["away_team_id"])
    )
    x, y, w, h = truth["scoreboard_box"]
    cx, _, cw, _ = truth["scoreboard_fields"]["clock"]
    seen = {"visible": 0, "hidden": 0, "stale": 0}
    for t0, t1, period, clock, home, away, vis in truth["states"]:
        if vis not in seen or t1 - t0 < 0.35:
            continue
        got = frames[int((t0 + t1) / 2 * res.fps)].astype(np.float32)[y : y + h, x : x + w]
        want = painter.image((period, clock, home, away)).astype(np.float32)
        err = float(np.abs(got - want).mean())
        if vis == "hidden":
            assert err > 40, (t0, err)
        else:
            assert err < 20, (t0, vis, err)
            wrong = painter.image((period, (clock + 7) % 3600, home, away)).astype(np.float32)
            sl = slice(cx - x, cx - x + cw)
            assert (
                np.abs(got[:, sl] - want[:, sl]).mean() < np.abs(got[:, sl] - wrong[:, sl]).mean()
            )
        seen[vis] += 1
    assert seen["visible"] > 5 and seen["hidden"] >= 1


def test_replays_ads_breaks_cuts(long_render: tuple[Any, dict[str, Any]]) -> None:
    res, _ = long_render
    truth = _truth(res)
    assert truth["replays"] and truth["ads"] and truth["breaks"] and truth["cuts"]
    assert res.replays == len(truth["replays"]) and res.cuts == len(truth["cuts"])
    for a, b in truth["ads"]:
        assert 3.0 <= b - a <= 8.0
        assert _state_at(truth, (a + b) / 2)[6] == "occluded"
    for a, b in truth["breaks"]:
        assert _state_at(truth, (a + b) / 2)[6] == "hidden"
    for a, b in truth["replays"]:
        assert 4.0 <= b - a <= 8.0
        assert _state_at(truth, (a + b) / 2)[6] in ("hidden", "stale")
    frames = _frames(res.video)
    # a hard cut changes the picture far more than consecutive frames within a shot do
    diffs = [
        float(np.abs(frames[i].astype(np.int16) - frames[i - 1]).mean())
        for i in range(1, len(frames))
    ]
    at_cuts = [
        diffs[round(c * res.fps) - 1]
        for c in truth["cuts"]
        if 1 <= round(c * res.fps) < len(frames)
    ]
    assert np.median(at_cuts) > 3 * np.median(diffs)


@pytest.mark.skipif(not espeak_available(), reason="espeak-ng not installed")
def test_commentary_is_audible(long_render: tuple[Any, dict[str, Any]], tmp_path: Path) -> None:
    res, pbp = long_render
    truth = _truth(res)
    assert truth["commentary"]
    quiet = render_game(
        pbp, tmp_path, start=res.start, duration=120.0, fps=10, size=(320, 180), commentary=False
    )
    loud, sr = _audio(res.video)
    base, _ = _audio(quiet.video)
    assert sr == 22050
    n = min(len(loud), len(base))
    voice = loud[:n] - base[:n]  # same crowd and music bed, so what differs is the commentary
    spoken = np.zeros(n, bool)
    ids = {e["event_id"] for e in pbp["events"]}
    for t0, t1, event_id, text in truth["commentary"]:
        assert text and event_id in ids and t1 > t0
        spoken[int(t0 * sr) : int(t1 * sr)] = True
    floor = float(np.sqrt(np.mean(voice[~spoken] ** 2)))
    for t0, t1, _, text in truth["commentary"]:
        a, b = int(t0 * sr), min(n, int(t1 * sr))
        if b - a < sr // 4:
            continue
        rms = float(np.sqrt(np.mean(voice[a:b] ** 2)))
        assert rms > 0.03 and rms > 5 * floor, (t0, text, rms, floor)


def test_pbp_feed_has_whole_game_without_video_times(
    long_render: tuple[Any, dict[str, Any]],
) -> None:
    res, pbp = long_render
    raw = Path(res.pbp).read_text()
    assert "video_time" not in raw and "spans" not in raw and "lineups" not in raw
    (game,) = load_pbp(res.pbp)
    assert game.game_id == pbp["game_id"] and game.sport == "hockey"
    assert len(game.events) == len(pbp["events"])
    assert (game.home_code, game.away_code) == team_codes(pbp["home_team"], pbp["away_team"])
    assert len(game.players) == len(pbp["players"])


def test_deterministic_and_excerpt_consistent(corpus: Path, tmp_path: Path) -> None:
    pbp = _game(corpus, "basketball")
    kw: dict[str, Any] = {"fps": 5, "size": (128, 72), "commentary": False}
    a = _truth(render_game(pbp, tmp_path / "a", start=100.0, duration=60.0, **kw))
    b = _truth(render_game(pbp, tmp_path / "b", start=100.0, duration=60.0, **kw))
    c = _truth(render_game(pbp, tmp_path / "c", start=100.0, duration=60.0, seed=5, **kw))
    d = _truth(render_game(pbp, tmp_path / "d", start=120.0, duration=20.0, **kw))
    assert a == b
    assert a["cuts"] != c["cuts"]
    assert d["cuts"] == [round(t - 20.0, 4) for t in a["cuts"] if 20.0 < t < 40.0]
    assert [e["event_id"] for e in d["events"]] == [
        e["event_id"] for e in a["events"] if 20.0 <= e["video_time"] < 40.0
    ]


def test_bad_requests(corpus: Path, tmp_path: Path) -> None:
    pbp = _game(corpus, "soccer")
    with pytest.raises(VideoError, match="outside the game video"):
        render_game(pbp, tmp_path, start=pbp["video_duration"] + 1)
    with pytest.raises(VideoError, match="empty"):
        render_game(pbp, tmp_path, duration=0)
    with pytest.raises(VideoError, match="multiples of 4"):
        render_game(pbp, tmp_path, size=(130, 72))
    with pytest.raises(VideoError, match="unknown sport"):
        render_game({**pbp, "sport": "curling"}, tmp_path)
    with pytest.raises(VideoError, match="lacks 'spans'"):
        render_game({k: v for k, v in pbp.items() if k != "spans"}, tmp_path)
    with pytest.raises(RenderError, match=r"^unknown sport 'curling'; known: basketball"):
        render_corpus(corpus, tmp_path, sport="curling")
    assert not list(tmp_path.iterdir())


def test_render_corpus_writes_combined_feed(corpus: Path, tmp_path: Path) -> None:
    out = render_corpus(
        corpus, tmp_path, games=2, start=30.0, duration=4.0, fps=5, size=(128, 72), commentary=False
    )
    assert [r.sport for r in out] == ["basketball", "hockey"]
    games = load_pbp(tmp_path / "pbp.json")
    assert [g.game_id for g in games] == [r.game_id for r in out]
    for r in out:
        assert Path(r.video).stat().st_size > 0 and Path(r.truth).exists()
        assert (tmp_path / f"{r.game_id}.mp4").exists()
