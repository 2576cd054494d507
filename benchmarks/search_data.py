"""Data for benchmarks/search.py: clip records laid out like the T9 release (~237 clips per
game, 30 teams, 10 seasons) and clip vectors from one of several distributions.

Distributions (384-d unit vectors), from kindest to hardest for an IVF index:
- mixture: 3,000-centre Gaussian mixture, noise norm 0.9 of the centre norm (the old
  benchmark's only data; tight clusters that IVF lists capture);
- medium: the same centres, noise norm 1.3;
- dup: near-duplicate groups (replays): medium draws, each copied 8 times with noise of norm
  0.05, so a sampled row finds its own copies in its own list;
- wide: the same centres, noise norm 2.0 (clusters overlap);
- uniform: uniform on the sphere (no structure: neighbours are barely closer than anything);
- minilm: real all-MiniLM-L6-v2 vectors of generated captions (`playscout corpus synth`,
  embedded once by `playscout index embed` and cached under var/), indexed as is;
- minilm-x: the same real vectors replicated to the requested row count, each copy moved by
  noise of norm 0.05 and re-normalised (the un-replicated set is `minilm`).

Queries: fresh draws for the synthetic sets ("fresh"), and for the mixtures two sets from
another source than the data (query_sets): "gap", draws blurred by a random unit vector and
moved along one shared direction (text queries across a modality gap sit like this relative
to video vectors: far from every centroid), and "shift", draws moved off the data's cone
along that direction without the blur. For the real sets, held-out captions (2% of the
cache, never indexed): half whole captions, half 4-12 word windows of them embedded live by
MiniLM, as users' queries are; and "questions", the corpus's T9 questions embedded as
queries (another source than the captions: a question is not a caption).
"""

from __future__ import annotations

import json
import math
import random
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from playscout.corpus import Corpus
from playscout.corpus.models import ClipRecord

CLIPS_PER_GAME = 237
SPORT = "basketball"
SEASONS = 10
TEAMS = [f"Team {c}{d}" for c in "ABCDEF" for d in "12345"]
PLAYERS = [f"Player {i}" for i in range(150)]
BLOCK = 4096
DIM = 384
HELD_OUT = 0.02  # share of the real vectors kept out of the index as query sources
REPLICA_NOISE = 0.05


def num_games(clips: int) -> int:
    return math.ceil(clips / CLIPS_PER_GAME)


def game_meta(g: int, games: int) -> tuple[str, str, int, str, str]:
    """(game id, date, season, home, away) of game g; games are in date order."""
    season = 2015 + g * SEASONS // max(1, games)
    day = g % 180
    date = f"{season - 1}-{10 + day // 60:02d}-{1 + day % 28:02d}"
    home, away = random.Random(g).sample(TEAMS, 2)
    return str(100000 + g), date, season, home, away


def season_games(season: int, games: int) -> list[str]:
    return [game_meta(g, games)[0] for g in range(games) if game_meta(g, games)[2] == season]


def row_of(clip_id: str) -> int:
    g, _, i = clip_id.rpartition("_")
    return (int(g) - 100000) * CLIPS_PER_GAME + int(i)


def gen_clips(n: int, captions: Sequence[str] | None = None) -> Iterator[ClipRecord]:
    """Clip records; a clip's team alternates between the two sides, so a team filter keeps
    about 1/30 of the rows, a season 1/10."""
    games = num_games(n)
    for row in range(n):
        g, i = divmod(row, CLIPS_PER_GAME)
        gid, date, season, home, away = game_meta(g, games)
        team = home if i % 2 else away
        ps = random.Random(team).sample(PLAYERS, 12)
        yield ClipRecord(
            clip_id=f"{gid}_{i}",
            sport=SPORT,
            game_id=gid,
            index=i,
            period=1 + i * 4 // CLIPS_PER_GAME,
            video_start=i * 12.0,
            video_end=i * 12.0 + 10.0,
            teams=[team],
            players=[ps[i % 12], ps[(i * 7) % 12]],
            date=date,
            season=season,
            caption=captions[row % len(captions)] if captions else "",
        )


def _unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


class Vectors:
    """Rows generated (or looked up) by block, deterministically."""

    name = ""
    description = ""
    captions: list[str] | None = None  # per base row, for build-time text queries

    def block(self, b: int) -> np.ndarray:
        raise NotImplementedError

    def rows(self, rows: np.ndarray) -> np.ndarray:
        out = np.empty((len(rows), DIM), dtype=np.float32)
        blocks = rows // BLOCK
        for b in np.unique(blocks):
            pick = blocks == b
            out[pick] = self.block(int(b))[rows[pick] % BLOCK]
        return out

    def queries(self, n: int) -> tuple[np.ndarray, list[str]]:
        raise NotImplementedError


GAP = _unit(np.random.default_rng(77).standard_normal((1, DIM)).astype(np.float32))
# A second gap direction for "gap2": no one chose a constant of the build looking at it (the
# far queries' design was compared against "gap" and "shift" at 600K rows; issue 36).
GAP2 = _unit(np.random.default_rng(78).standard_normal((1, DIM)).astype(np.float32))


class Mixture(Vectors):
    def __init__(self, noise: float, centres: int = 3000, name: str = "") -> None:
        c = np.random.default_rng(0).standard_normal((centres, DIM)).astype(np.float32)
        self.centres, self.noise = _unit(c), noise / math.sqrt(DIM)
        self.name = name or ("mixture" if noise < 1.5 else "wide")
        self.description = f"Gaussian mixture, {centres} centres, noise norm {noise}"

    def query_sets(self, n: int, seed: int = 0) -> dict[str, np.ndarray]:
        """Fresh draws, and the sets from another source ("gap", "shift"; module doc; "gap2"
        as "gap" along another direction, from another draw); `seed` > 0 draws other queries
        of the same kinds (a tuning sample)."""
        rng = np.random.default_rng((99, seed))
        fresh = self.draw(rng, n)
        blur = _unit(rng.standard_normal((n, DIM)).astype(np.float32))
        gap = _unit(0.6 * self.draw(rng, n) + 0.5 * blur + 0.6 * GAP)
        shift = _unit(self.draw(rng, n) + GAP)
        other = np.random.default_rng((98, seed))
        blur2 = _unit(other.standard_normal((n, DIM)).astype(np.float32))
        gap2 = _unit(0.6 * self.draw(other, n) + 0.5 * blur2 + 0.6 * GAP2)
        return {"fresh": fresh, "gap": gap, "shift": shift, "gap2": gap2}

    def draw(self, rng: np.random.Generator, n: int) -> np.ndarray:
        a = rng.integers(0, len(self.centres), n)
        x = self.centres[a] + rng.standard_normal((n, DIM)).astype(np.float32) * self.noise
        return _unit(x)

    def block(self, b: int) -> np.ndarray:
        return self.draw(np.random.default_rng((1, b)), BLOCK)

    def queries(self, n: int) -> tuple[np.ndarray, list[str]]:
        return self.draw(np.random.default_rng(99), n), ["fresh draw"] * n


class NearDuplicates(Mixture):
    """Replays: every base draw of a mixture copied COPIES times, each copy moved by noise of
    norm REPLICA_NOISE (copies of a row are adjacent rows)."""

    COPIES = 8

    def __init__(self, noise: float) -> None:
        super().__init__(noise, name="dup")
        self.description = (
            f"near-duplicate groups of {self.COPIES}: Gaussian mixture draws (noise norm "
            f"{noise}), each copy moved by noise norm {REPLICA_NOISE}"
        )

    def block(self, b: int) -> np.ndarray:
        rows = np.arange(b * BLOCK, (b + 1) * BLOCK) // self.COPIES
        base = np.concatenate([Mixture.block(self, int(bb)) for bb in np.unique(rows // BLOCK)])
        x = base[rows - (rows[0] // BLOCK) * BLOCK]
        noise = np.random.default_rng((4, b)).standard_normal(x.shape).astype(np.float32)
        return _unit(x + noise * (REPLICA_NOISE / math.sqrt(DIM)))


class Uniform(Vectors):
    name, description = "uniform", "uniform unit vectors"

    def block(self, b: int) -> np.ndarray:
        rng = np.random.default_rng((2, b))
        return _unit(rng.standard_normal((BLOCK, DIM)).astype(np.float32))

    def queries(self, n: int) -> tuple[np.ndarray, list[str]]:
        q = np.random.default_rng(98).standard_normal((n, DIM)).astype(np.float32)
        return _unit(q), ["fresh draw"] * n


def corpus_texts(corpus: Path, what: str) -> tuple[list[str], list[str]]:
    """(ids, texts) of every non-empty caption ("captions") or passage ("passages") of a
    generated corpus, every sport, in corpus order."""
    from playscout.search.core.passages import split_passages

    c = Corpus(corpus)
    ids, texts = [], []
    for sport in c.sports():
        if what == "captions":
            for clip in c.iter_clips(sport):
                if clip.caption.strip():
                    ids.append(clip.clip_id)
                    texts.append(clip.caption)
        else:
            for doc in c.iter_documents(sport):
                for i, (s, e) in enumerate(split_passages(doc.text)):
                    ids.append(f"{doc.doc_id}#{i}")
                    texts.append(doc.text[s:e])
    return ids, texts


def cached_vectors(cache: Path, texts: list[str], embedder: Any, chunk: int = 2048) -> np.ndarray:
    """MiniLM vectors of `texts`, embedded once in chunks saved under `cache` as they finish,
    each named by the hash of its texts (an interrupted run resumes where it stopped, and a
    chunk-aligned prefix of the texts reuses the chunks)."""
    import hashlib

    cache.mkdir(parents=True, exist_ok=True)
    parts = []
    for start in range(0, len(texts), chunk):
        part = texts[start : start + chunk]
        key = hashlib.sha256("\n".join(part).encode()).hexdigest()[:20]
        path = cache / f"{key}.npy"
        if not path.is_file():
            block = np.asarray(embedder.embed_documents(part), np.float32)
            np.save(cache / f"{key}.partial.npy", block)
            (cache / f"{key}.partial.npy").rename(path)
            print(f"  .. embedded {start + len(block)}/{len(texts)}", file=sys.stderr, flush=True)
        parts.append(np.load(path))
    return np.concatenate(parts) if parts else np.zeros((0, DIM), np.float32)


def load_real(cache: Path, corpus: Path, embedder: Any, limit: int) -> tuple[np.ndarray, list[str]]:
    """Real MiniLM vectors of the first `limit` non-empty captions of the generated corpus,
    and the captions."""
    _, captions = corpus_texts(corpus, "captions")
    captions = captions[:limit]
    return cached_vectors(cache, captions, embedder), captions


def corpus_questions(corpus: Path) -> list[str]:
    """The generated corpus's T9 questions (every sport): text from another source than the
    captions, as users' questions are."""
    c = Corpus(corpus)
    return [q.question for sport in c.sports() for q in c.questions(sport)]


class RealMiniLM(Vectors):
    """Real vectors; `replicate` > 1 row count means copies with small noise."""

    def __init__(self, base: np.ndarray, captions: list[str], rows: int | None) -> None:
        perm = np.random.default_rng(5).permutation(len(base))
        held = perm[: int(len(base) * HELD_OUT)]
        keep = np.sort(perm[int(len(base) * HELD_OUT) :])
        self.base, self.captions = base[keep], [captions[i] for i in keep]
        self.held_vectors, self.held_captions = base[held], [captions[i] for i in held]
        self.replicated = rows is not None and rows > len(self.base)
        self.name = "minilm-x" if self.replicated else "minilm"
        self.description = f"real MiniLM caption vectors ({len(self.base)} distinct)" + (
            f", replicated to {rows} with noise norm {REPLICA_NOISE}" if self.replicated else ""
        )

    def block(self, b: int) -> np.ndarray:
        rows = np.arange(b * BLOCK, (b + 1) * BLOCK)
        x = self.base[rows % len(self.base)]
        if not self.replicated:
            return x
        noise = np.random.default_rng((3, b)).standard_normal(x.shape).astype(np.float32)
        copy = rows >= len(self.base)  # the first copy of each row is the real vector
        x = x.copy()
        x[copy] += noise[copy] * (REPLICA_NOISE / math.sqrt(DIM))
        return _unit(x)

    def queries(self, n: int, embedder: Any = None) -> tuple[np.ndarray, list[str]]:
        """Half whole held-out captions (their cached vectors), half windows of others,
        embedded now by `embedder`."""
        half = n // 2
        whole = self.held_vectors[:half]
        rng = random.Random(11)
        windows = []
        for caption in self.held_captions[half : half + (n - half)]:
            words = caption.split()
            size = rng.randint(4, 12)
            start = rng.randint(0, max(0, len(words) - size))
            windows.append(" ".join(words[start : start + size]))
        embedded = np.asarray(embedder.embed_queries(windows), dtype=np.float32)
        texts = self.held_captions[:half] + windows
        return np.concatenate([whole, embedded]), texts

    @staticmethod
    def question_draws(questions: list[str], embedder: Any, n: int) -> dict[str, np.ndarray]:
        """Two disjoint draws of the corpus's questions, embedded as queries: "questions" is
        measured, "questions-tune" may be the build's query file (never both the same)."""
        if len(questions) < 2 * n:
            raise SystemExit(
                f"the corpus has {len(questions)} questions; the questions set needs {2 * n}: "
                "run `playscout corpus questions ROOT --per-sport N` first"
            )
        order = random.Random(13).sample(questions, len(questions))
        measured, tune = order[:n], order[n : 2 * n]
        return {
            "questions": np.asarray(embedder.embed_queries(measured), dtype=np.float32),
            "questions-tune": np.asarray(embedder.embed_queries(tune), dtype=np.float32),
        }


class VisualSource:
    """VisualVectorSource over a distribution: clip '<game>_<i>' is row game * 237 + i."""

    def __init__(self, vectors: Vectors) -> None:
        self.vectors = vectors

    def spec(self) -> dict[str, Any]:
        return {"kind": "precomputed", "model": f"bench-{self.vectors.name}", "dim": DIM}

    def vectors_for(self, sport: str, clip_ids: Sequence[str]) -> np.ndarray:
        return self.vectors.rows(np.asarray([row_of(c) for c in clip_ids], dtype=np.int64))


class TextVisualSource(VisualSource):
    """A VisualSource whose vectors a text model made (the real sets): the build then
    measures recall for text queries through that model too."""

    def __init__(self, vectors: Vectors, query_embedder: Any) -> None:
        super().__init__(vectors)
        self.query_embedder = query_embedder

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self.query_embedder.embed_queries(texts))


class LookupQueries:
    """Query 'q<i>' -> the i-th prepared query vector (the query side of VisualSource)."""

    def __init__(self, name: str, queries: np.ndarray) -> None:
        self.name, self.queries, self.dim = name, queries, queries.shape[1]

    def spec(self) -> dict[str, Any]:
        return {"kind": "openai", "model": f"bench-{self.name}", "dim": self.dim}

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.queries[[int(t[1:]) for t in texts]]


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1))
