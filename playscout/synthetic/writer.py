"""Corpus writer: workers simulate and write one game each; the parent walks results in
schedule order to write recaps (records and streaks need every earlier game) and season docs.

Per-game work depends only on (seed, sport, game index), so output is byte-identical for any
number of workers; the parent keeps only small per-game summaries and season aggregates.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import orjson

from playscout.corpus.models import season_year_to_code
from playscout.errors import PlayscoutError

from . import documents as D
from .clips import build_clips
from .game_sim import game_rng, simulate
from .roster import League, build_league
from .schedule import GameSpec, build_schedule
from .sports import SPECS

GENERATOR_VERSION = "playscout-synth/1"
SYNTH_MANIFEST = "synth_manifest.json"  # in a generated corpus's root: what made it
_OPTS = orjson.OPT_SORT_KEYS

_CTX: dict[str, tuple[League, list[GameSpec], Path, int]] = {}


def split_games(games: int, sports: Sequence[str]) -> dict[str, int]:
    """Largest-remainder split in the paper's proportions (3307 / 2482 / 1641)."""
    weights = [SPECS[s].league.paper_games for s in sports]
    total = sum(weights)
    raw = [games * w / total for w in weights]
    out = [int(r) for r in raw]
    order = sorted(range(len(sports)), key=lambda i: (-(raw[i] - out[i]), i))
    for i in order[: games - sum(out)]:
        out[i] += 1
    return dict(zip(sports, out, strict=True))


def _write(path: Path, data: bytes) -> None:
    path.write_bytes(data)


def _init(ctx: dict[str, tuple[League, list[GameSpec], Path, int]]) -> None:
    _CTX.clear()
    _CTX.update(ctx)


def _pbp(sport: str, gs: GameSpec, league: League, res: dict[str, Any]) -> dict[str, Any]:
    return {
        "game_id": gs.game_id,
        "sport": sport,
        "date": gs.date,
        "season": gs.season,
        "home_team_id": gs.home,
        "away_team_id": gs.away,
        "home_team": league.teams[gs.home],
        "away_team": league.teams[gs.away],
        "period_scores": res["period_scores"],
        "video_duration": res["video_duration"],
        "players": res["players"],
        "span_fields": [
            "video_start",
            "video_end",
            "period",
            "clock_elapsed",
            "clock_running",
            "covered",
        ],
        "spans": res["spans"],
        "lineups": [
            {"video_time": v, "team_id": (gs.home, gs.away)[s], "player_ids": p}
            for v, s, p in res["lineups"]
        ],
        "events": res["events"],
    }


def _game(task: tuple[str, int]) -> dict[str, Any]:
    """Simulate and write one game; return the summary the parent needs."""
    sport, index = task
    league, schedule, sport_dir, seed = _CTX[sport]
    gs = schedule[index]
    res = simulate(SPECS[sport], gs, league, seed)
    pbp = _pbp(sport, gs, league, res)
    gdir = sport_dir / "games" / gs.game_id
    gdir.mkdir(parents=True, exist_ok=True)
    files = {"game_info": f"games/{gs.game_id}/game_info.json"}
    info = {
        "date": gs.date,
        "season": gs.season,
        "season_type": "regular-season",
        "home_team": pbp["home_team"],
        "away_team": pbp["away_team"],
        "home_team_id": gs.home,
        "away_team_id": gs.away,
    }
    _write(gdir / "game_info.json", orjson.dumps(info, option=_OPTS))
    _write(gdir / "play_by_play.json", orjson.dumps(pbp))
    files["play_by_play"] = f"games/{gs.game_id}/play_by_play.json"
    box = D.box_score(sport, pbp)
    ptext, rows = D.player_stat_text(sport, pbp, box)
    _write(gdir / "game_stat_player.txt", ptext.encode())
    totals = D.team_totals(sport, pbp, box)
    _write(gdir / "game_stat_team.txt", D.team_stat_text(sport, pbp, totals).encode())
    files["game_stat_player"] = f"games/{gs.game_id}/game_stat_player.txt"
    files["game_stat_team"] = f"games/{gs.game_id}/game_stat_team.txt"
    n_clips = 0
    if gs.has_clips:
        teams = {gs.home: pbp["home_team"], gs.away: pbp["away_team"]}
        clips, paths = build_clips(sport, gs.game_id, res, teams, game_rng(seed, sport, -1 - index))
        _write(gdir / "clips_metadata.json", orjson.dumps(clips))
        cdir = sport_dir / "clips" / gs.game_id
        cdir.mkdir(parents=True, exist_ok=True)
        _write(cdir / "clip_paths.json", orjson.dumps(paths))
        files["clips_metadata"] = f"games/{gs.game_id}/clips_metadata.json"
        files["clip_paths"] = f"clips/{gs.game_id}/clip_paths.json"
        n_clips = len(clips["windows"])
    missing: dict[str, str] = {}
    dressed = {p["player_id"] for p in res["players"]}
    for tid in (gs.home, gs.away):
        star = max(league.rosters[gs.season][tid], key=lambda p: p.rating)
        if star.pid not in dressed:
            missing[tid] = star.name
    summary = D.game_summary(sport, pbp, rows, missing)
    return {
        "index": index,
        "files": files,
        "rows": rows,
        "summary": summary,
        "clips": n_clips,
        "clip_seconds": 0.0,
    }


class SynthError(PlayscoutError, ValueError):
    """A generation request that cannot give a usable corpus (a user error)."""


class _SeasonBook:
    """Standings, streaks and season aggregates, updated in schedule order."""

    def __init__(self, sport: str, seed: int) -> None:
        self.sport = sport
        self.draws = SPECS[sport].league.draws
        self.seed = seed
        self.rec: dict[tuple[int, str], list[int]] = defaultdict(lambda: [0, 0, 0])  # W, D, L
        self.home_rec: dict[tuple[int, str], list[int]] = defaultdict(lambda: [0, 0, 0])
        self.away_rec: dict[tuple[int, str], list[int]] = defaultdict(lambda: [0, 0, 0])
        self.pts: dict[tuple[int, str], list[int]] = defaultdict(lambda: [0, 0, 0])
        self.streak: dict[tuple[int, str], tuple[str, int]] = {}
        self.players: dict[tuple[int, str], dict[str, Any]] = {}

    def fmt(self, r: list[int]) -> tuple[int, ...]:
        """W-D-L where games can be drawn, else W-L."""
        return (r[0], r[1], r[2]) if self.draws else (r[0], r[2])

    def add(self, gs: GameSpec, sm: dict[str, Any], rows: list[dict[str, Any]]) -> str:
        s = gs.season
        hs, as_ = sm["home_score"], sm["away_score"]
        prev = {t: self.streak.get((s, t), ("", 0)) for t in (gs.home, gs.away)}
        for tid, mine, theirs, book in (
            (gs.home, hs, as_, self.home_rec),
            (gs.away, as_, hs, self.away_rec),
        ):
            k = 0 if mine > theirs else 1 if mine == theirs else 2
            self.rec[(s, tid)][k] += 1
            book[(s, tid)][k] += 1
            p = self.pts[(s, tid)]
            p[0] += mine
            p[1] += theirs
            p[2] += 1
            letter = "WDL"[k]
            old = self.streak.get((s, tid), ("", 0))
            self.streak[(s, tid)] = (letter, old[1] + 1 if old[0] == letter else 1)
        for r in rows:
            agg = self.players.setdefault(
                (s, r["pid"]),
                {
                    "name": r["name"],
                    "team_id": r["team_id"],
                    "position": r["position"],
                    "games": 0,
                    "secs": 0.0,
                    "tot": defaultdict(int),
                },
            )
            agg["games"] += 1
            agg["secs"] += r["secs"]
            agg["team_id"] = r["team_id"]
            for k2, v in r["stats"].items():
                agg["tot"][k2] += v
        rec = {t: self.fmt(self.rec[(s, t)]) for t in (gs.home, gs.away)}
        streak = {t: self.streak[(s, t)] for t in (gs.home, gs.away)}
        rng = D.recap_rng(self.seed, self.sport, gs.game_id)
        return D.recap_text(self.sport, sm, rec, streak, prev, rng)


def _results(pool: Any, sport: str, n: int) -> Iterator[dict[str, Any]]:
    tasks = [(sport, i) for i in range(n)]
    if pool is None:
        return (_game(t) for t in tasks)
    it: Iterator[dict[str, Any]] = pool.imap(_game, tasks, chunksize=4)
    return it


def write_corpus(
    out: Path,
    games: int,
    sports: Sequence[str],
    seed: int,
    workers: int | None,
    progress: Callable[[str, int, int], None] | None,
    clip_games: int | None = None,
) -> dict[str, dict[str, Any]]:
    """`clip_games`: at most this many games of each sport get clips (schedule.py)."""
    if games < 1:  # zero games wrote a corpus with no data/ folder, which validate rejects
        raise SynthError(f"--games must be at least 1, not {games}")
    out = Path(out)
    counts = split_games(games, sports) if len(sports) > 1 else {sports[0]: games}
    ctx: dict[str, tuple[League, list[GameSpec], Path, int]] = {}
    for sport in sports:
        n = counts[sport]
        if n == 0:
            continue
        league = build_league(sport, n, seed)
        schedule = build_schedule(league, n, seed, clip_games)
        sport_dir = out / "data" / sport
        sport_dir.mkdir(parents=True, exist_ok=True)
        ctx[sport] = (league, schedule, sport_dir, seed)
    n_workers = workers if workers is not None else (os.cpu_count() or 1)
    pool = None
    if n_workers > 1:
        pool = mp.get_context("fork" if os.name == "posix" else "spawn").Pool(
            n_workers, initializer=_init, initargs=(ctx,)
        )
    else:
        _init(ctx)
    stats: dict[str, dict[str, Any]] = {}
    try:
        for sport, (league, schedule, sport_dir, _) in ctx.items():
            t0 = time.perf_counter()
            stats[sport] = _write_sport(pool, sport, league, schedule, sport_dir, seed, progress)
            stats[sport]["seconds"] = round(time.perf_counter() - t0, 3)
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    (out / "questions").mkdir(parents=True, exist_ok=True)
    manifest = {
        "generator_version": GENERATOR_VERSION,
        "seed": seed,
        "params": {"games": games, "sports": list(sports)}
        | ({"clip_games": clip_games} if clip_games is not None else {}),
        "counts": {s: {k: v for k, v in st.items() if k != "seconds"} for s, st in stats.items()},
    }
    _write(out / SYNTH_MANIFEST, orjson.dumps(manifest, option=_OPTS | orjson.OPT_INDENT_2))
    return stats


def _write_sport(
    pool: Any,
    sport: str,
    league: League,
    schedule: list[GameSpec],
    sport_dir: Path,
    seed: int,
    progress: Callable[[str, int, int], None] | None,
) -> dict[str, Any]:
    book = _SeasonBook(sport, seed)
    meta: dict[str, dict[str, str]] = {}
    n_clips = n_reports = n_clip_games = 0
    total = len(schedule)
    for done, r in enumerate(_results(pool, sport, total), start=1):
        gs = schedule[r["index"]]
        text = book.add(gs, r["summary"], r["rows"])
        files = r["files"]
        if gs.has_report:
            _write(sport_dir / "games" / gs.game_id / "espn_report.txt", text.encode())
            files["espn_report"] = f"games/{gs.game_id}/espn_report.txt"
            n_reports += 1
        meta[gs.game_id] = dict(sorted(files.items()))
        n_clips += r["clips"]
        n_clip_games += gs.has_clips
        if progress is not None:
            progress(sport, done, total)
    _write(sport_dir / "metadata.json", orjson.dumps(meta))
    n_ps = _write_player_seasons(sport, league, book, sport_dir)
    n_ts = _write_team_seasons(sport, league, book, sport_dir)
    players = {pid for (_s, pid) in book.players}
    teams = {tid for (_s, tid) in book.rec}
    return {
        "games": total,
        "clip_games": n_clip_games,
        "clips": n_clips,
        "reports": n_reports,
        "documents": n_reports + 2 * total + n_ps + n_ts,
        "player_seasons": n_ps,
        "team_seasons": n_ts,
        "players": len(players),
        "teams": len(teams),
    }


def _write_player_seasons(sport: str, league: League, book: _SeasonBook, sport_dir: Path) -> int:
    meta: dict[str, dict[str, dict[str, str]]] = defaultdict(dict)
    for (season, pid), agg in sorted(
        book.players.items(), key=lambda kv: (int(kv[0][1]), kv[0][0])
    ):
        code = season_year_to_code(season)
        d = sport_dir / "seasons" / "players" / pid
        d.mkdir(parents=True, exist_ok=True)
        team = league.teams[agg["team_id"]]
        text = D.season_player_text(
            sport, agg["name"], team, agg["games"], dict(agg["tot"]), agg["secs"], agg["position"]
        )
        _write(d / f"{code}_season_stat_player.txt", text.encode())
        _write(
            d / f"{code}_entity_info.json",
            orjson.dumps(
                {"entity_name": agg["name"], "team_name": team, "team_id": agg["team_id"]},
                option=_OPTS,
            ),
        )
        meta[pid][code] = {
            "season_stat_player": f"seasons/players/{pid}/{code}_season_stat_player.txt",
            "entity_info": f"seasons/players/{pid}/{code}_entity_info.json",
        }
    _write(sport_dir / "metadata_season_player.json", orjson.dumps(meta))
    return len(book.players)


def _write_team_seasons(sport: str, league: League, book: _SeasonBook, sport_dir: Path) -> int:
    meta: dict[str, dict[str, dict[str, str]]] = defaultdict(dict)
    for season, tid in sorted(book.rec, key=lambda k: (int(k[1]), k[0])):
        code = season_year_to_code(season)
        d = sport_dir / "seasons" / "teams" / tid
        d.mkdir(parents=True, exist_ok=True)
        name = league.teams[tid]
        p = book.pts[(season, tid)]
        text = D.season_team_text(
            sport,
            name,
            code,
            book.fmt(book.rec[(season, tid)]),
            book.fmt(book.home_rec[(season, tid)]),
            book.fmt(book.away_rec[(season, tid)]),
            p[0],
            p[1],
            p[2],
        )
        _write(d / f"{code}_season_stat_team.txt", text.encode())
        _write(d / f"{code}_entity_info.json", orjson.dumps({"entity_name": name}, option=_OPTS))
        meta[tid][code] = {
            "season_stat_team": f"seasons/teams/{tid}/{code}_season_stat_team.txt",
            "entity_info": f"seasons/teams/{tid}/{code}_entity_info.json",
        }
    _write(sport_dir / "metadata_season_team.json", orjson.dumps(meta))
    return len(book.rec)


__all__ = ["GENERATOR_VERSION", "SPECS", "split_games", "write_corpus"]
