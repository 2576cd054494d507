"""Scale benchmark of the embedded search backend.

    python benchmarks/search.py --clips 200000 [--docs 33000] [--dim 384]

Builds an index from generated records, then measures p50/p99 latency of (a) unfiltered clip
search, (b) game-filtered clip search, (c) document hybrid search, each against exact
brute-force search in the same run, plus recall@100 of (a)/(b) against exact.

Data is synthetic and says so: clip vectors are unit vectors drawn from a Gaussian mixture with
--centres centres (default 3000; noise norm ~0.9 of the centre norm), ~237 clips per game; query
vectors are fresh draws from the same mixture. Documents are template text (reports, player and
team stat lines) embedded with a feature-hashing embedder (unigrams + bigrams -> dim), so dense
document search costs what a 384-d model's vectors cost to search, minus model inference.
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import resource
import shutil
import sys
import tempfile
import time
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from playscout.corpus.models import ClipRecord, DocumentRecord
from playscout.search.backend_api import ClipFilter
from playscout.search.embedded.build import SportSource, build_index, open_index

CLIPS_PER_GAME = 237
SPORT = "basketball"
TEAMS = [f"Team {c}{d}" for c in "ABCDEF" for d in "12345"]
EVENTS = [
    "three pointer",
    "layup",
    "dunk",
    "rebound",
    "turnover",
    "steal",
    "block",
    "free throw",
    "assist",
    "foul",
    "jump shot",
    "alley-oop",
    "fast break",
    "timeout",
    "substitution",
]
FIRST = ["James", "Kevin", "Luka", "Nikola", "Jayson", "Stephen", "Joel", "Devin", "Trae", "Ja"]
LAST = [
    "Smith",
    "Brown",
    "Jones",
    "Miller",
    "Davis",
    "Garcia",
    "Wilson",
    "Moore",
    "Young",
    "King",
    "Wright",
    "Lopez",
    "Hill",
    "Scott",
    "Green",
]
PLAYERS = [f"{f} {s}" for f in FIRST for s in LAST]  # 150 names


def rss_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6


class MixtureVectors:
    """Deterministic Gaussian-mixture unit vectors, generated in blocks of rows."""

    BLOCK = 4096

    def __init__(self, dim: int, centres: int, seed: int = 0, noise: float = 0.9) -> None:
        rng = np.random.default_rng(seed)
        c = rng.standard_normal((centres, dim)).astype(np.float32)
        self.centres = c / np.linalg.norm(c, axis=1, keepdims=True)
        self.dim, self.noise, self.seed = dim, noise / math.sqrt(dim), seed
        self._cache: dict[int, np.ndarray] = {}

    def draw(self, rng: np.random.Generator, n: int) -> np.ndarray:
        a = rng.integers(0, len(self.centres), n)
        x = self.centres[a] + rng.standard_normal((n, self.dim)).astype(np.float32) * self.noise
        return x / np.linalg.norm(x, axis=1, keepdims=True)

    def block(self, b: int) -> np.ndarray:
        if b not in self._cache:
            if len(self._cache) > 4:
                self._cache.pop(next(iter(self._cache)))
            self._cache[b] = self.draw(np.random.default_rng((self.seed, b)), self.BLOCK)
        return self._cache[b]

    def rows(self, rows: np.ndarray) -> np.ndarray:
        return np.stack([self.block(int(r) // self.BLOCK)[int(r) % self.BLOCK] for r in rows])


class VisualSource:
    """VisualVectorSource over MixtureVectors; clip '<game>_<i>' is row game * 237 + i."""

    def __init__(self, mix: MixtureVectors) -> None:
        self.mix = mix

    def spec(self) -> dict[str, Any]:
        return {"kind": "precomputed", "model": "synthetic-gmm", "dim": self.mix.dim}

    def vectors_for(self, sport: str, clip_ids: Sequence[str]) -> np.ndarray:
        rows = np.asarray([_row_of(c) for c in clip_ids], dtype=np.int64)
        return self.mix.rows(rows)


def _row_of(clip_id: str) -> int:
    g, _, i = clip_id.rpartition("_")
    return (int(g) - 100000) * CLIPS_PER_GAME + int(i)


class LookupQueries:
    """Query 'q<i>' -> the i-th prepared query vector (the query side of VisualSource)."""

    def __init__(self, queries: np.ndarray) -> None:
        self.queries, self.dim = queries, queries.shape[1]

    def spec(self) -> dict[str, Any]:
        return {"kind": "openai", "model": "synthetic-gmm", "dim": self.dim}

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.queries[[int(t[1:]) for t in texts]]


class HashingEmbedder:
    """Signed feature hashing of lowercase unigrams and bigrams, L2-normalised."""

    def __init__(self, dim: int) -> None:
        self.dim = dim

    def spec(self) -> dict[str, Any]:
        return {"kind": "hashing", "model": "hash-uni-bi", "dim": self.dim}

    def _one(self, text: str) -> np.ndarray:
        words = text.lower().split()
        v = np.zeros(self.dim, dtype=np.float32)
        for tok in words + [a + " " + b for a, b in itertools.pairwise(words)]:
            h = zlib.crc32(tok.encode())
            v[h % self.dim] += 1.0 if h & 0x80000000 else -1.0
        n = np.linalg.norm(v)
        if n == 0:
            v[0] = 1.0
            n = 1.0
        return v / n

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self._one(t) for t in texts]) if texts else np.zeros((0, self.dim))

    embed_queries = embed_documents


def game_meta(g: int) -> tuple[str, str, int, str, str]:
    day = g % 180
    season = 2015 + (g * 10) // max(1, NUM_GAMES)
    date = f"{season - 1}-{10 + day // 60:02d}-{1 + day % 28:02d}"
    r = random.Random(g)
    home, away = r.sample(TEAMS, 2)
    return str(100000 + g), date, season, home, away


def roster(team: str) -> list[str]:
    r = random.Random(team)
    return r.sample(PLAYERS, 12)


def gen_clips(n: int) -> Iterator[ClipRecord]:
    for row in range(n):
        g, i = divmod(row, CLIPS_PER_GAME)
        gid, date, season, home, away = game_meta(g)
        team = home if i % 2 else away
        ps = roster(team)
        yield ClipRecord(
            clip_id=f"{gid}_{i}",
            sport=SPORT,
            game_id=gid,
            index=i,
            period=1 + i * 4 // 237,
            video_start=i * 12.0,
            video_end=i * 12.0 + 10.0,
            teams=[team],
            players=[ps[i % 12], ps[(i * 7) % 12]],
            date=date,
            season=season,
        )


def gen_docs(m: int) -> Iterator[DocumentRecord]:
    r = random.Random(1)
    for k in range(m):
        g = k // 3 % max(1, NUM_GAMES)
        gid, date, season, home, away = game_meta(g)
        ps = roster(home) + roster(away)
        kind = ("espn_report", "game_stat_player", "game_stat_team")[k % 3]
        if kind == "espn_report":
            lines = []
            for _ in range(r.randint(8, 16)):
                p, q = r.sample(ps, 2)
                lines.append(
                    f"{p} had a {r.choice(EVENTS)} and a {r.choice(EVENTS)} in the "
                    f"{r.choice(['first', 'second', 'third', 'fourth'])} quarter as {home} "
                    f"{r.choice(['led', 'trailed', 'tied'])} {away} {r.randint(50, 130)}-"
                    f"{r.randint(50, 130)}; {q} answered with {r.randint(2, 40)} points."
                )
        elif kind == "game_stat_player":
            lines = [
                f"{p}: {r.randint(0, 40)} PTS, {r.randint(0, 15)} REB, {r.randint(0, 12)} AST,"
                f" {r.randint(10, 40)} MIN"
                for p in ps
            ]
        else:
            lines = [
                f"{t}: FG {r.randint(35, 55)}%, 3PT {r.randint(25, 45)}%, REB "
                f"{r.randint(30, 55)}, TOV {r.randint(8, 20)}"
                for t in (home, away)
            ]
        yield DocumentRecord(
            doc_id=f"{gid}_{kind}_{k}",
            sport=SPORT,
            doc_type=kind,
            text="\n".join(lines),  # type: ignore[arg-type]
            game_id=gid,
            date=date,
            season=season,
            home_team=home,
            away_team=away,
            teams=[home, away],
            players=ps if kind != "game_stat_team" else [],
        )


def pct(xs: list[float], p: float) -> float:
    return float(np.percentile(np.asarray(xs) * 1000, p))


def timed(fn: Any, args: list[Any]) -> tuple[list[float], list[Any]]:
    times, outs = [], []
    for a in args:
        t = time.perf_counter()
        outs.append(fn(a))
        times.append(time.perf_counter() - t)
    return times, outs


def report(name: str, ann: list[float], exact: list[float]) -> None:
    print(
        f"{name:<34} p50 {pct(ann, 50):8.2f} ms  p99 {pct(ann, 99):8.2f} ms | exact p50 "
        f"{pct(exact, 50):8.2f} ms  p99 {pct(exact, 99):8.2f} ms | exact/p50 ratio "
        f"{pct(exact, 50) / max(pct(ann, 50), 1e-9):6.1f}x"
    )


NUM_GAMES = 1


def main() -> None:
    global NUM_GAMES
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clips", type=int, required=True)
    ap.add_argument("--docs", type=int, default=33_000)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--centres", type=int, default=3000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--out", type=Path, default=None, help="index dir (default: a temp dir)")
    ap.add_argument("--keep", action="store_true", help="keep the index afterwards")
    args = ap.parse_args()
    NUM_GAMES = math.ceil(args.clips / CLIPS_PER_GAME)
    print(
        f"data: SYNTHETIC. {args.clips} clips in {NUM_GAMES} games (~{CLIPS_PER_GAME}/game), "
        f"{args.dim}-d unit vectors from a Gaussian mixture of {args.centres} centres; "
        f"{args.docs} template documents, hashing embedder ({args.dim}-d)."
    )
    mix = MixtureVectors(args.dim, args.centres)
    queries = mix.draw(np.random.default_rng(99), args.queries)
    base = args.out or Path(tempfile.mkdtemp(prefix="psbench-")) / "index"
    embed = HashingEmbedder(args.dim)

    last: dict[str, int] = {}

    def progress(stage: str, done: int, total: int | None) -> None:
        if done // 250_000 != last.get(stage, -1):
            last[stage] = done // 250_000
            print(
                f"  .. {stage} {done}{'/' + str(total) if total else ''} rss {rss_gb():.2f} GB",
                flush=True,
            )

    t0 = time.perf_counter()
    summary = build_index(
        base,
        [SportSource(SPORT, gen_docs(args.docs), gen_clips(args.clips))],
        doc_embedder=embed,
        caption_embedder=None,
        visual_vectors=VisualSource(mix),
        progress=progress,
        overwrite=True,
    )
    build_s = time.perf_counter() - t0
    info = summary.sports[SPORT]
    print(
        f"build: {build_s:.1f} s (manifest {summary.seconds:.1f} s); peak RSS {rss_gb():.2f} GB;"
        f" index size {summary.size_bytes / 1e9:.2f} GB; docs {info['documents']}, passages "
        f"{info['passages']}, clips {info['clips']}, games {info['games']}"
    )
    print(
        f"visual ANN: {info['channels']['visual']['ann']}; "
        f"doc ANN: {info['channels']['documents']['ann']}"
    )

    backend = open_index(base, {"visual": LookupQueries(queries), "documents": embed})
    qids = [f"q{i}" for i in range(args.queries)]
    rng = random.Random(5)
    games = [game_meta(rng.randrange(NUM_GAMES))[0] for _ in qids]
    store = backend._sport(SPORT).clips.dense["visual"]

    def clip_unfiltered(q: str) -> list[str]:
        return [h.clip_id for h in backend.search_clips(SPORT, q, top_k=100)]

    def clip_game(qg: tuple[str, str]) -> list[str]:
        f = ClipFilter(game_ids=[qg[1]])
        return [h.clip_id for h in backend.search_clips(SPORT, qg[0], f, top_k=100)]

    words = [w for e in EVENTS for w in e.split()] + LAST + TEAMS
    doc_qs = [" ".join(rng.sample(words, 3)) for _ in qids]

    def doc_search(q: str) -> list[str]:
        return [h.doc_id for h in backend.search_documents(SPORT, q, top_k=20)]

    results = {}
    for exact in (False, True):
        backend.exact = exact
        timed(clip_unfiltered, qids[:5])  # warm page cache / code paths
        results[exact] = {
            "core": timed(lambda q, e=exact: store.search(q, 100, exact=e)[0], list(queries)),
            "a": timed(clip_unfiltered, qids),
            "b": timed(clip_game, list(zip(qids, games, strict=True))),
            "c": timed(doc_search, doc_qs),
        }
    ann, ex = results[False], results[True]
    print(f"latency over {args.queries} queries, top-k 100 clips / 20 docs, 1 process:")
    report("vector core, unfiltered (no records)", ann["core"][0], ex["core"][0])
    report("(a) clip search, unfiltered", ann["a"][0], ex["a"][0])
    report("(b) clip search, one game", ann["b"][0], ex["b"][0])
    report("(c) document hybrid search", ann["c"][0], ex["c"][0])

    def recall(key: str) -> float:
        return float(
            np.mean(
                [
                    len(set(a) & set(b)) / max(1, len(b))
                    for a, b in zip(ann[key][1], ex[key][1], strict=True)
                ]
            )
        )

    def overlap_docs() -> float:
        return float(
            np.mean(
                [
                    len(set(a) & set(b)) / max(1, len(b))
                    for a, b in zip(ann["c"][1], ex["c"][1], strict=True)
                ]
            )
        )

    print(
        f"recall@100 vs exact: (a) unfiltered {recall('a'):.4f}  (b) game-filtered "
        f"{recall('b'):.4f};  (c) doc top-20 overlap with exact {overlap_docs():.4f}"
    )
    print(f"peak RSS {rss_gb():.2f} GB")
    backend.close()
    if not args.keep:
        shutil.rmtree(base.parent if args.out is None else base, ignore_errors=True)


if __name__ == "__main__":
    main()
