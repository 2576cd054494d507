"""The T9 files of an indexed game, built from the play-by-play, its alignment and the clips."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from playscout.corpus.match_state import format_clock, remaining_and_elapsed
from playscout.corpus.pbp import PbpGame
from playscout.media.cut import Window


def game_info(game: PbpGame) -> dict[str, Any]:
    return {
        "date": game.date,
        "season": game.season,
        "season_type": game.season_type,
        "home_team": game.home_team,
        "away_team": game.away_team,
        "home_team_id": game.home_team_id,
        "away_team_id": game.away_team_id,
    }


def pbp_with_times(game: PbpGame, alignment: Any, video_name: str) -> dict[str, Any]:
    """The play-by-play as given, each event with the video time and status the aligner gave."""
    data = game.model_dump(mode="json")
    data["video"] = video_name
    placed = {e.event_id: e for e in alignment.events}
    for ev in data["events"]:
        a = placed.get(ev["event_id"])
        ev["video_time"] = None if a is None else a.video_time
        ev["alignment"] = "unaligned" if a is None else a.status
    return data


def state_near(timeline: Any, t: float, *, forward: bool, within: float = 15.0) -> Any:
    """The state on screen at t, else the nearest one seen within `within` seconds after
    (forward) or before t: a window that starts in a replay still gets its game clock."""
    state = timeline.state_at(t)
    if state is not None:
        return state
    best = None
    for seg in timeline.segments:
        if forward and t <= seg.t_start <= t + within:
            return seg.state
        if not forward and t - within <= seg.t_end <= t:
            best = seg.state
    return best


def visible_between(timeline: Any, start: float, end: float) -> bool:
    """Whether the scoreboard was read anywhere in [start, end)."""
    return any(seg.t_start < end and seg.t_end > start for seg in timeline.segments)


def _clock_window(game: PbpGame, state: Any) -> tuple[int, dict[str, str]] | None:
    if state is None:
        return None
    remaining, elapsed = remaining_and_elapsed(game.sport, state.period, state.clock)
    return state.period, {"remaining": format_clock(remaining), "elapsed": format_clock(elapsed)}


def clip_windows_file(
    game: PbpGame,
    windows: Sequence[Window],
    alignment: Any,
    timeline: Any,
    transcripts: Mapping[str, str],
    audio_events: Mapping[str, list[str]],
) -> dict[str, Any]:
    """clips_metadata.json: per window its period and game-clock range (read off the
    scoreboard), the aligned events with their captions, and what was heard in it."""
    teams = {game.home_team_id: game.home_team, game.away_team_id: game.away_team}
    names = {p.player_id: p.name for p in game.players}
    by_id = {e.event_id: e for e in game.events}
    times = sorted((t, eid) for eid, t in alignment.times().items())
    out: dict[str, Any] = {}
    i = 0
    for w in windows:
        while i < len(times) and times[i][0] < w.start:
            i += 1
        ids: list[int] = []
        j = i
        while j < len(times) and times[j][0] < w.end:
            ids.append(times[j][1])
            j += 1
        events = {str(eid): {"caption": by_id[eid].caption} for eid in ids}
        players: dict[str, str] = {}
        for eid in ids:
            ev = by_id[eid]
            if ev.player_id:
                players[ev.player_id] = ev.player or names.get(ev.player_id, ev.player_id)
        first = _clock_window(game, state_near(timeline, w.start, forward=True))
        last = _clock_window(game, state_near(timeline, w.end, forward=False))
        period = first[0] if first else last[0] if last else 0
        clock: dict[str, str] = {}
        if first:
            clock["start_remaining"] = first[1]["remaining"]
            clock["start_elapsed"] = first[1]["elapsed"]
        if last:
            clock["end_remaining"] = last[1]["remaining"]
            clock["end_elapsed"] = last[1]["elapsed"]
        metadata: dict[str, Any] = {
            "teams": teams,
            "players": players,
            "events": events,
            "game_clock_window": clock,
        }
        if transcripts.get(w.clip_id):
            metadata["transcript"] = transcripts[w.clip_id]
        if audio_events.get(w.clip_id):
            metadata["audio_events"] = audio_events[w.clip_id]
        out[w.clip_id] = {
            "window_id": w.clip_id,
            "period": period,
            "video_window": {"start": w.start, "end": w.end},
            "event_ids": ids,
            "metadata": metadata,
        }
    return {"windows": out, "teams": teams, "players": names}
