"""Renders one synthetic game (or an excerpt) to a broadcast-like MP4, the indexer's play-by-play
input and the ground truth, and a set of games from a synthetic corpus."""

from __future__ import annotations

import bisect
import logging
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import orjson
from pydantic import BaseModel

from playscout.corpus.match_state import team_codes
from playscout.corpus.pbp import dump_pbp
from playscout.media.encode import Mp4Writer
from playscout.synthetic.sports import spec_names

from . import commentary as talk
from .audio import AudioTrack
from .overlays import Overlays
from .plan import BREAK, REPLAY, SCENE, Plan, Segment, plan_broadcast
from .scene import Scene, team_colors
from .scoreboard import ScoreboardPainter
from .timeline import GameClock, RenderError
from .truth import ad_at, build_truth, wipe_len
from .yuv import Planes

log = logging.getLogger(__name__)
Progress = Callable[[str, int, int], None]  # game_id, frames done, frames total


class RenderResult(BaseModel):
    game_id: str
    sport: str
    video: str
    pbp: str
    truth: str
    start: float
    duration: float
    fps: int
    width: int
    height: int
    frames: int
    events: int
    commentary_lines: int
    replays: int
    ads: int
    breaks: int
    cuts: int
    video_bytes: int
    wall_seconds: float
    frames_per_second: float


class _Compositor:
    """Draws the frame on air at a game time: scene, replay (with wipes) or break card."""

    def __init__(
        self,
        clock: GameClock,
        plan: Plan,
        scene: Scene,
        board: ScoreboardPainter,
        ov: Overlays,
        size: tuple[int, int],
    ) -> None:
        self.clock, self.plan, self.scene, self.board, self.ov = clock, plan, scene, board, ov
        self.a, self.b = Planes(*size), Planes(*size)
        self.i = 0
        self.ad_starts = [ad.t0 for ad in plan.ads]

    def content(self, seg: Segment, t: float, p: Planes) -> None:
        clock = self.clock
        if seg.kind == SCENE:
            self.scene.draw(p, self.plan.camera_at(t), clock.tau(t))
            self.board.paste(p, clock.state_at(t))
            ad = ad_at(self.plan, self.ad_starts, t)
            if ad is not None:
                self.ov.paste_ad(p, ad, t)
        elif seg.kind == REPLAY:
            src = seg.source(t)
            self.scene.draw(p, seg.camera, clock.tau(src))
            if seg.stale:
                self.board.paste(p, clock.state_at(src))
            self.ov.paste_replay_banner(p)
        else:
            self.ov.paste_card(p, seg.card, clock.state_at(seg.t0), t)

    def frame(self, t: float) -> Planes:
        segs = self.plan.segments
        if t < segs[self.i].t0:
            self.i = max(0, bisect.bisect_right([s.t0 for s in segs], t) - 1)
        while self.i + 1 < len(segs) and segs[self.i].t1 <= t:
            self.i += 1
        seg = segs[self.i]
        if seg.kind == REPLAY:
            w = wipe_len(seg)
            if t < seg.t0 + w and self.i > 0:
                self.content(seg, t, self.a)
                self.content(segs[self.i - 1], t, self.b)
                self.ov.wipe(self.a, self.b, (t - seg.t0) / w)
                return self.a
            if t >= seg.t1 - w and self.i + 1 < len(segs):
                self.content(segs[self.i + 1], t, self.a)
                self.content(seg, t, self.b)
                self.ov.wipe(self.a, self.b, (t - (seg.t1 - w)) / w)
                return self.a
        self.content(seg, t, self.a)
        return self.a


def _cheers(clock: GameClock) -> list[float]:
    """Times of scoring plays: the crowd roars."""
    return [float(e["video_time"]) for e in clock.scoring_plays()]


def pbp_game(pbp: dict[str, Any]) -> dict[str, Any]:
    """The play-by-play a real feed would give: whole game, no video times, spans or lineups."""
    codes = team_codes(pbp["home_team"], pbp["away_team"])
    drop = {"video_time", "clock_seconds"}
    return {
        "game_id": pbp["game_id"],
        "sport": pbp["sport"],
        "date": pbp["date"],
        "season": pbp["season"],
        "season_type": pbp.get("season_type", "regular-season"),
        "home_team": pbp["home_team"],
        "away_team": pbp["away_team"],
        "home_team_id": pbp["home_team_id"],
        "away_team_id": pbp["away_team_id"],
        "home_code": codes[0],
        "away_code": codes[1],
        "video": f"{pbp['game_id']}.mp4",
        "players": [
            {k: p[k] for k in ("player_id", "name", "number", "team_id", "position") if k in p}
            for p in pbp.get("players", [])
        ],
        "events": [
            {k: v for k, v in e.items() if k not in drop}
            for e in sorted(pbp["events"], key=lambda e: e["event_id"])
        ],
    }


def _range(gid: str, clock: GameClock, start: float, duration: float | None, fps: int) -> int:
    """Frame count of the requested range; one-line RenderError when there is nothing to draw."""
    if start < 0 or start >= clock.video_duration:
        raise RenderError(
            f"game {gid}: start {start} s is outside the game video (0 to {clock.video_duration} s)"
        )
    if duration is not None and duration <= 0:
        raise RenderError(
            f"game {gid}: duration {duration} s is empty; give a positive one or None"
        )
    end = clock.end if duration is None else min(clock.end, start + duration)
    n = round((end - start) * fps) if duration is not None else int((end - start) * fps)
    n = min(n, int((clock.end - start) * fps))
    if n < 1:
        raise RenderError(f"game {gid}: range [{start}, {end}) s holds no frame at {fps} fps")
    return n


def render_game(
    pbp: dict[str, Any],
    out_dir: Path,
    *,
    start: float = 0.0,
    duration: float | None = None,
    fps: int = 25,
    size: tuple[int, int] = (640, 360),
    seed: int = 0,
    commentary: bool = True,
    progress: Progress | None = None,
    preset: str = "ultrafast",
    crf: int = 23,
) -> RenderResult:
    """Render synthetic time [start, start+duration) of one game (None: to the end) into
    out_dir/{game_id}.mp4, .pbp.json (indexer input) and .truth.json (ground truth)."""
    t_wall = time.perf_counter()
    if not 1 <= fps <= 120:
        raise RenderError(f"fps {fps} is outside 1..120")
    w, h = size
    if w % 4 or h % 4 or w < 128 or h < 72:
        raise RenderError(f"size {w}x{h}: width and height must be multiples of 4, at least 128x72")
    clock = GameClock(pbp)
    gid = str(pbp["game_id"])
    n = _range(gid, clock, float(start), duration, fps)
    end = start + n / fps
    plan = plan_broadcast(clock, seed, gid)
    codes = team_codes(pbp["home_team"], pbp["away_team"])
    colors = team_colors(clock.sport, str(pbp["home_team_id"]), str(pbp["away_team_id"]))
    scene = Scene(clock.sport, size, colors, seed)
    board = ScoreboardPainter(clock.sport, size, codes, colors)
    ov = Overlays(size, board.layout, clock.sport, (pbp["home_team"], pbp["away_team"]), codes)
    comp = _Compositor(clock, plan, scene, board, ov, size)

    lines = [ln for ln in talk.plan_lines(clock.sport, clock.events) if start <= ln.t0 < end]
    placed: list[tuple[float, Any]] = []
    said: list[list[Any]] = []
    if commentary and lines and not talk.available():
        log.warning("espeak-ng not found: rendering %s without commentary", gid)
        lines = []
    if commentary and lines:
        try:
            clips = talk.synthesize([ln.text for ln in lines])
        except (OSError, subprocess.SubprocessError) as err:
            log.warning("espeak-ng failed (%s): rendering %s without commentary", err, gid)
            clips = {}
        for ln in lines:
            clip = clips.get(ln.text, np.zeros(0, np.float32))[
                : int((ln.t1 - ln.t0) * talk.SAMPLE_RATE)
            ]
            if clip.size == 0:
                continue
            placed.append((ln.t0, clip))
            t1 = min(end, ln.t0 + len(clip) / talk.SAMPLE_RATE)
            said.append([round(ln.t0 - start, 4), round(t1 - start, 4), ln.event_id, ln.text])
    track = AudioTrack(seed, _cheers(clock), plan.kinds(BREAK), placed)

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    video = out_dir / f"{gid}.mp4"
    sr = talk.SAMPLE_RATE
    a0 = round(start * sr)
    done_samples = 0
    with Mp4Writer(video, fps, size, sr, preset=preset, crf=crf, title=gid) as mp4:
        for i in range(n):
            mp4.frame(comp.frame(start + i / fps).buf, i)
            if (i + 1) % fps == 0 or i + 1 == n:
                upto = round((i + 1) / fps * sr)
                mp4.samples(track.chunk(a0 + done_samples, a0 + upto))
                done_samples = upto
            if progress is not None and ((i + 1) % (10 * fps) == 0 or i + 1 == n):
                progress(gid, i + 1, n)

    pbp_path = out_dir / f"{gid}.pbp.json"
    pbp_path.write_bytes(dump_pbp([pbp_game(pbp)]))
    truth = build_truth(
        clock,
        plan,
        pbp,
        start=start,
        end=end,
        fps=fps,
        size=size,
        box=board.layout.box,
        fields=board.layout.fields,
        commentary=said,
    )
    truth_path = out_dir / f"{gid}.truth.json"
    truth_path.write_bytes(orjson.dumps(truth))
    wall = time.perf_counter() - t_wall
    res = RenderResult(
        game_id=gid,
        sport=clock.sport,
        video=str(video),
        pbp=str(pbp_path),
        truth=str(truth_path),
        start=start,
        duration=round(n / fps, 4),
        fps=fps,
        width=w,
        height=h,
        frames=n,
        events=len(truth["events"]),
        commentary_lines=len(said),
        replays=len(truth["replays"]),
        ads=len(truth["ads"]),
        breaks=len(truth["breaks"]),
        cuts=len(truth["cuts"]),
        video_bytes=video.stat().st_size,
        wall_seconds=round(wall, 3),
        frames_per_second=round(n / wall, 1),
    )
    log.info("rendered %s: %d frames in %.1f s (%.0f fps)", gid, n, wall, n / wall)
    return res


def corpus_games(corpus_dir: Path, sport: str | None = None) -> list[Path]:
    """play_by_play.json files of a synthetic corpus, sports in name order, games by id."""
    names = spec_names()
    if sport is not None and sport not in names:
        raise RenderError(f"unknown sport {sport!r}; known: {', '.join(names)}")
    out: list[Path] = []
    for s in [sport] if sport else names:
        files = (Path(corpus_dir) / "data" / s / "games").glob("*/play_by_play.json")
        out += sorted(files, key=lambda p: (len(p.parent.name), p.parent.name))
    return out


def render_corpus(
    corpus_dir: Path,
    out_dir: Path,
    *,
    sport: str | None = None,
    games: int | Sequence[str] | None = None,
    **render_kwargs: Any,
) -> list[RenderResult]:
    """Render games of a synthetic corpus into out_dir/{game_id}.* plus out_dir/pbp.json with all
    of them, ready for `index videos --videos out_dir --pbp out_dir/pbp.json`. `games`: how many
    (taken round-robin over the sports), which game ids, or None for all."""
    files = corpus_games(corpus_dir, sport)
    if isinstance(games, int):
        by_sport: dict[str, list[Path]] = {}
        for f in files:
            by_sport.setdefault(f.parents[2].name, []).append(f)
        order: list[Path] = []
        queues = list(by_sport.values())
        while len(order) < games and any(queues):
            for q in queues:
                if q and len(order) < games:
                    order.append(q.pop(0))
        files = order
    elif games is not None:
        want = [str(g) for g in games]
        have = {f.parent.name: f for f in files}
        missing = [g for g in want if g not in have]
        if missing:
            raise RenderError(
                f"{corpus_dir}: no play_by_play.json for game(s) {', '.join(missing)}"
            )
        files = [have[g] for g in want]
    if not files:
        raise RenderError(f"{corpus_dir}: no synthetic games found under data/*/games/")
    results: list[RenderResult] = []
    feed: list[dict[str, Any]] = []
    for f in files:
        pbp = orjson.loads(f.read_bytes())
        results.append(render_game(pbp, Path(out_dir), **render_kwargs))
        feed.append(pbp_game(pbp))
    (Path(out_dir) / "pbp.json").write_bytes(dump_pbp(feed))
    return results
