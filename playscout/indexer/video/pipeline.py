"""`playscout index videos`: full-game videos + a play-by-play file -> clips in the T9 layout.

Stages per game (each timed): probe, scoreboard reading and alignment (ASAP), shot detection,
clip windows, cutting (one decoding pass that also keeps frames for embeddings), visual
embeddings, speech, audio events. Every game is processed into a staging folder first and the
corpus is touched only after all games succeeded, so a bad video or play-by-play leaves it
unchanged.
"""

from __future__ import annotations

import bisect
import shutil
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import orjson
from pydantic import BaseModel, Field

from playscout.corpus.pbp import PbpGame, load_pbp
from playscout.embed.embedder import made_on
from playscout.indexer.video.commentary_align import refine_with_commentary
from playscout.indexer.video.commit import (
    VISUAL_DIR,
    check_visual_spec,
    commit_staging,
    existing_games,
)
from playscout.indexer.video.metadata import (
    clip_windows_file,
    game_info,
    pbp_with_times,
    visible_between,
)
from playscout.indexer.video.speech import decode_game_audio
from playscout.indexer.video.windows import plan_windows
from playscout.media.cut import Window, cut_clips
from playscout.media.errors import BrokenVideoError, VideoError
from playscout.media.probe import probe_video
from playscout.media.shots import detect_shots
from playscout.storage import OutputLock

VIDEO_SUFFIXES = (".mp4", ".mkv", ".mov", ".webm", ".avi", ".ts", ".m4v")

Progress = Callable[[str], None]
STAGING = "staging"  # .CORPUS.staging-XXXXXXXX beside the corpus: games being indexed


class VideoIndexOptions(BaseModel):
    """What `index videos` does; the defaults are what a full run uses."""

    sample_fps: float = Field(5.0, gt=0, le=30, description="Scoreboard frames read per second.")
    ocr_engine: str = Field("ppocr", description="ppocr (PP-OCR) or tesseract.")
    shot_threshold: float = Field(27.0, gt=0, description="PySceneDetect ContentDetector.")
    window_min_s: float = 10.0
    window_max_s: float = 15.0
    window_target_s: float = 12.0
    keep_breaks: bool = Field(
        False, description="Keep windows with no scoreboard and no events (commercial breaks)."
    )
    embed_fps: float = Field(1.0, gt=0, le=30, description="Frames per second for embeddings.")
    max_embed_frames: int = Field(16, ge=1, le=64)
    crf: int = Field(26, ge=0, le=51, description="libx264 quality of the clip files.")
    visual_model: dict[str, Any] | None = Field(
        None, description="open_clip embedder spec; None = no visual vectors."
    )
    speech: bool = Field(True, description="Transcribe commentary with faster-whisper.")
    audio_events: bool = Field(False, description="Caption audio events with Audio Flamingo.")
    overwrite: bool = False


class StageTimes(BaseModel):
    seconds: dict[str, float] = Field(default_factory=dict)

    def add(self, stage: str, seconds: float) -> None:
        self.seconds[stage] = round(self.seconds.get(stage, 0.0) + seconds, 3)


class GameSummary(BaseModel):
    game_id: str
    sport: str
    video: str
    video_seconds: float
    clips: int
    dropped_break_windows: int
    events: int
    events_in_video: int
    aligned: int
    ambiguous: int
    unaligned: int
    placed_by_commentary: int
    transcribed_clips: int
    stages: StageTimes


class VideoIndexSummary(BaseModel):
    corpus: str
    games: list[GameSummary]
    wall_seconds: float


def find_video(videos_dir: Path, game: PbpGame) -> Path:
    if game.video:
        path = (videos_dir / game.video).resolve()
        if not path.is_relative_to(videos_dir.resolve()):
            raise BrokenVideoError(
                f"game {game.game_id}: video path {game.video!r} leaves {videos_dir}"
            )
        if not path.is_file():
            raise BrokenVideoError(f"game {game.game_id}: video {path} not found")
        return path
    for suffix in VIDEO_SUFFIXES:
        path = videos_dir / f"{game.game_id}{suffix}"
        if path.is_file():
            return path
    raise BrokenVideoError(
        f"game {game.game_id}: no video named {game.game_id}.mp4 (or .mkv, .mov, ...) in {videos_dir}"
    )


def index_videos(
    videos_dir: Path,
    pbp_file: Path,
    corpus_dir: Path,
    options: VideoIndexOptions | None = None,
    *,
    perception: Any = None,
    progress: Progress | None = None,
) -> VideoIndexSummary:
    """Index every game of `pbp_file` whose video is in `videos_dir` into `corpus_dir`. Holds
    the corpus's lock throughout (a second run into the same corpus fails at once) and first
    removes the staging folders killed runs left beside it."""
    say = progress or (lambda _msg: None)
    with OutputLock(corpus_dir, "video indexing run") as lock:
        swept = lock.sweep(STAGING)
        if swept.folders:
            say(f"{swept} (left by killed runs)")
        return _index_videos(
            videos_dir, pbp_file, corpus_dir, options, perception=perception, say=say
        )


def _index_videos(
    videos_dir: Path,
    pbp_file: Path,
    corpus_dir: Path,
    options: VideoIndexOptions | None,
    *,
    perception: Any,
    say: Progress,
) -> VideoIndexSummary:
    opts = options or VideoIndexOptions()
    t0 = time.perf_counter()
    if not videos_dir.is_dir():
        raise VideoError(f"{videos_dir}: videos directory not found")
    games = load_pbp(pbp_file)
    videos = {g.game_id: find_video(videos_dir, g) for g in games}
    taken = existing_games(corpus_dir, [(g.sport, g.game_id) for g in games])
    if taken and not opts.overwrite:
        raise VideoError(
            f"{corpus_dir}: game(s) {', '.join(taken)} already in the corpus; pass --overwrite"
        )
    embedder = _visual_embedder(opts)
    check_visual_spec(corpus_dir, embedder.spec() if embedder else None)
    staging = corpus_dir.parent / f".{corpus_dir.name}.{STAGING}-{uuid.uuid4().hex[:8]}"
    summaries: list[GameSummary] = []
    try:
        for game in games:
            say(f"{game.sport} {game.game_id}: {videos[game.game_id].name}")
            summaries.append(
                _index_game(game, videos[game.game_id], staging, opts, embedder, perception, say)
            )
        commit_staging(
            staging,
            corpus_dir,
            embedder.spec() if embedder else None,
            made_on(embedder) if embedder else None,
        )
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return VideoIndexSummary(
        corpus=str(corpus_dir),
        games=summaries,
        wall_seconds=round(time.perf_counter() - t0, 3),
    )


def _visual_embedder(opts: VideoIndexOptions) -> Any:
    if not opts.visual_model:
        return None
    from playscout.embed import make_embedder

    return make_embedder(opts.visual_model)


def _index_game(
    game: PbpGame,
    video: Path,
    staging: Path,
    opts: VideoIndexOptions,
    embedder: Any,
    perception: Any,
    say: Progress,
) -> GameSummary:
    from playscout.indexer.video.scoreboard import align_events, read_scoreboard
    from playscout.indexer.video.scoreboard.align import StoppageModel

    times = StageTimes()
    clock = time.perf_counter()

    def lap(stage: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        times.add(stage, now - clock)
        clock = now

    info = probe_video(video)
    lap("probe")
    timeline = read_scoreboard(
        video, game.sport, sample_fps=opts.sample_fps, engine=opts.ocr_engine
    )
    lap("scoreboard")
    audio = decode_game_audio(video) if info.has_audio else np.zeros(0, np.float32)
    lap("audio")
    listen = opts.speech and audio.size > 0
    # with commentary, events sharing a stopped-clock state are placed by what is said; the
    # free-throw cadence prior (fitted to synthetic games) is only the fallback without it
    alignment = align_events(timeline, game, stoppage=StoppageModel(during=()) if listen else None)
    lap("align")
    words: list[Any] = []
    if listen:
        from playscout.indexer.video.speech import transcribe_game

        words = transcribe_game(audio, _perception(perception))
        lap("speech")
        if alignment.counts.get("ambiguous"):
            alignment = refine_with_commentary(alignment, timeline, game, words)
            lap("align")
    say(f"  {placement_line(alignment.counts, alignment.covered, len(game.events))}")
    cuts = detect_shots(video, threshold=opts.shot_threshold)
    lap("shots")
    kept, dropped = _windows(game.game_id, info.duration, cuts, timeline, alignment, opts)
    lap("windows")
    sport_dir = staging / "data" / game.sport
    clip_dir = sport_dir / "clips" / game.game_id
    cut = cut_clips(
        video,
        kept,
        clip_dir,
        audio=audio if audio.size else None,
        embed_fps=opts.embed_fps,
        max_embed_frames=opts.max_embed_frames,
        crf=opts.crf,
    )
    lap("cut")
    say(f"  {len(kept)} clips ({dropped} break windows dropped)")
    if embedder is not None:
        from playscout.indexer.video.visual import clip_vectors

        vec_dir = staging / VISUAL_DIR / game.sport
        vec_dir.mkdir(parents=True, exist_ok=True)
        # every clip's frames of the game through the batched frame pipeline at once
        vectors = clip_vectors(embedder, list(cut.frames.values()))
        for clip_id, vector in zip(cut.frames, vectors, strict=True):
            np.save(vec_dir / f"{clip_id}.npy", vector)
        lap("visual")
    transcripts: dict[str, str] = {}
    if words:
        from playscout.indexer.video.speech import assign_to_windows

        transcripts = assign_to_windows(words, [(w.clip_id, w.start, w.end) for w in kept])
    sounds: dict[str, list[str]] = {}
    if opts.audio_events and audio.size:
        from playscout.indexer.video.audio_events import describe_windows

        run = describe_windows(audio, kept, _perception(perception))
        if run.skipped:
            say(f"  audio events skipped: {run.skipped}")
        sounds = run.events
        lap("audio_events")
    game_dir = sport_dir / "games" / game.game_id
    game_dir.mkdir(parents=True, exist_ok=True)
    clips_file = clip_windows_file(game, kept, alignment, timeline, transcripts, sounds)
    _write_json(game_dir / "clips_metadata.json", clips_file)
    _write_json(game_dir / "game_info.json", game_info(game))
    _write_json(game_dir / "play_by_play.json", pbp_with_times(game, alignment, video.name))
    _write_json(game_dir / "alignment.json", alignment.model_dump(mode="json"))
    _write_json(clip_dir / "clip_paths.json", {w.clip_id: f"{w.clip_id}.mp4" for w in kept})
    lap("write")
    return GameSummary(
        game_id=game.game_id,
        sport=game.sport,
        video=str(video),
        video_seconds=round(info.duration, 3),
        clips=len(kept),
        dropped_break_windows=dropped,
        events=len(game.events),
        events_in_video=alignment.covered,
        aligned=alignment.counts.get("aligned", 0),
        ambiguous=alignment.counts.get("ambiguous", 0),
        unaligned=alignment.counts.get("unaligned", 0),
        placed_by_commentary=sum(e.reason.startswith("commentary") for e in alignment.events),
        transcribed_clips=sum(1 for t in transcripts.values() if t),
        stages=times,
    )


def _windows(
    game_id: str,
    duration: float,
    cuts: list[float],
    timeline: Any,
    alignment: Any,
    opts: VideoIndexOptions,
) -> tuple[list[Window], int]:
    """Clip windows snapped to cuts, without commercial breaks (no scoreboard, no events);
    also how many were dropped."""
    spans = plan_windows(
        duration,
        cuts,
        min_s=opts.window_min_s,
        max_s=opts.window_max_s,
        target_s=opts.window_target_s,
    )
    times = sorted(alignment.times().values())
    kept: list[Window] = []
    dropped = 0
    for start, end in spans:
        i = bisect.bisect_left(times, start)
        has_events = i < len(times) and times[i] < end
        if not opts.keep_breaks and not has_events and not visible_between(timeline, start, end):
            dropped += 1
            continue
        kept.append(Window(f"{game_id}_{len(kept)}", start, end))
    return kept, dropped


def _perception(perception: Any) -> Any:
    if perception is not None:
        return perception
    from playscout.config import Settings

    return Settings.load().perception


def _write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY))


def placement_line(counts: dict[str, int], covered: int, total: int) -> str:
    """What share of the events the video could hold were placed, and why the rest of the
    play-by-play is not: a video of part of a game shows part of its events, which is not a
    failure (`aligned 18/514 events` read like one)."""
    placed, ambiguous = counts.get("aligned", 0), counts.get("ambiguous", 0)
    share = f" ({placed / covered:.0%})" if covered else ""
    line = f"placed {placed} of the {covered} events inside the video's game time{share}"
    if ambiguous:
        line += f", {ambiguous} more ambiguous"
    if total > covered:
        line += (
            f"; the other {total - covered} of the {total} play-by-play events happen before "
            "or after the part of the game the video shows"
        )
    return line


def summary_table(summary: VideoIndexSummary) -> list[dict[str, Any]]:
    """One row per game for the CLI: counts and x real time per stage."""
    rows = []
    for g in summary.games:
        row: dict[str, Any] = {
            "game": g.game_id,
            "clips": g.clips,
            "placed": f"{g.aligned}+{g.ambiguous} ambiguous of {g.events_in_video} in video",
        }
        for stage, secs in g.stages.seconds.items():
            row[stage] = f"{g.video_seconds / secs:.0f}x" if secs > 0 else "-"
        rows.append(row)
    return rows


__all__: Sequence[str] = (
    "VideoIndexOptions",
    "VideoIndexSummary",
    "index_videos",
    "placement_line",
)
