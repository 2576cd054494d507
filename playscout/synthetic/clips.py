"""Clip windows: consecutive 10-15 s windows tiling the covered video spans of one game.

Built with plain dicts and two-pointer walks (events, spans and lineups are all in video
order), because this runs ~1.8M times at full scale.
"""

from __future__ import annotations

import random
from typing import Any

from .game_sim import Span
from .sports import SPECS


def _mmss(seconds: float) -> str:
    s = max(0, int(seconds))
    return f"{s // 60:02d}:{s % 60:02d}"


def _runs(spans: list[Span]) -> list[tuple[float, float, bool]]:
    """Contiguous covered stretches as (start, end, may_spill_into_next_span)."""
    runs: list[tuple[float, float, bool]] = []
    cur: list[float] | None = None
    for i, (v0, v1, period, _c, _r, covered) in enumerate(spans):
        if covered:
            if cur is not None and abs(cur[1] - v0) < 1e-6:
                cur[1] = v1
            else:
                if cur is not None:
                    runs.append((cur[0], cur[1], True))
                cur = [v0, v1]
        nxt = spans[i + 1] if i + 1 < len(spans) else None
        if cur is not None and (nxt is None or not nxt[5]):
            spill = nxt is not None and nxt[2] == period
            runs.append((cur[0], cur[1], spill))
            cur = None
    return runs


def build_clips(
    sport: str, game_id: str, result: dict[str, Any], teams: dict[str, str], rng: random.Random
) -> tuple[dict[str, Any], dict[str, str]]:
    lg = SPECS[sport].league
    board = SPECS[sport].board
    f = (lg.clip_mean - 10.0) / 5.0
    alpha, beta = f * 3.0, (1.0 - f) * 3.0
    spans: list[Span] = result["spans"]
    events = result["events"]
    lineups = result["lineups"]
    names = {p["player_id"]: p["name"] for p in result["players"]}
    on: list[list[str]] = [[], []]
    windows: dict[str, Any] = {}
    paths: dict[str, str] = {}
    ei = si = li = 0
    last_end = -1.0
    idx = 0
    n_ev, n_sp, n_li = len(events), len(spans), len(lineups)
    for a, b, spill in _runs(spans):
        cur = max(a, last_end)
        while b - cur >= 1.0:
            d = 10.0 + 5.0 * rng.betavariate(alpha, beta)
            end = cur + d
            if end > b and not spill:
                break
            start = round(cur, 3)
            end = round(end, 3)
            cur = last_end = end
            if rng.random() >= lg.keep_window:
                continue
            while si + 1 < n_sp and spans[si][1] <= start:
                si += 1
            sp = spans[si]
            period = sp[2]
            c_start = sp[3] + (start - sp[0] if sp[4] else 0.0)
            sj = si
            while sj + 1 < n_sp and spans[sj][1] < end and spans[sj + 1][2] == period:
                sj += 1
            spe = spans[sj]
            c_end = spe[3] + (min(end, spe[1]) - spe[0] if spe[4] else 0.0)
            while li < n_li and lineups[li][0] <= start:
                on[lineups[li][1]] = lineups[li][2]
                li += 1
            while ei < n_ev and events[ei]["video_time"] < start:
                ei += 1
            evs: dict[str, dict[str, str]] = {}
            ids: list[int] = []
            players: dict[str, str] = {}
            while ei < n_ev and events[ei]["video_time"] < end:
                ev = events[ei]
                ids.append(ev["event_id"])
                evs[str(ev["event_id"])] = {"caption": ev["caption"]}
                pid = ev["player_id"]
                if pid:
                    players[pid] = ev["player"]
                ei += 1
            for pid in on[0] + on[1]:
                if len(players) >= 10:
                    break
                players.setdefault(pid, names[pid])
            if board.countdown:
                plen = board.period_length(period)
                clock = {
                    "start_remaining": _mmss(plen - c_start + 0.999),
                    "end_remaining": _mmss(plen - c_end + 0.999),
                    "start_elapsed": _mmss(c_start),
                    "end_elapsed": _mmss(c_end),
                }
            else:
                base = (period - 1) * board.period_seconds
                clock = {
                    "start_remaining": _mmss(board.period_seconds - c_start),
                    "end_remaining": _mmss(board.period_seconds - c_end),
                    "start_elapsed": _mmss(base + c_start),
                    "end_elapsed": _mmss(base + c_end),
                }
            cid = f"{game_id}_{idx}"
            idx += 1
            windows[cid] = {
                "window_id": cid,
                "period": period,
                "video_window": {"start": start, "end": end},
                "event_ids": ids,
                "metadata": {
                    "teams": teams,
                    "players": players,
                    "events": evs,
                    "game_clock_window": clock,
                },
            }
            paths[cid] = f"{cid}.mp4"
    clips = {"windows": windows, "teams": teams, "players": names}
    return clips, paths
