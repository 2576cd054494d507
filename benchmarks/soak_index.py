"""A soak index at full scale: the tests' corpus (3 synthetic games, seed 1: its documents,
questions and clips, real MiniLM vectors) plus synthetic clips up to --clips rows, so the API
serves asks over real documents while every clip search runs against 1.76M vectors.

    python benchmarks/soak_index.py --work var/soak --clips 1760230

Embedding 1.76M captions with MiniLM takes days on 2 cores, so the added clips' caption
vectors are drawn around the corpus's own MiniLM caption vectors: row r is
unit(C[r mod m] + noise of norm --noise), C the m distinct caption vectors. The channel records
MiniLM's spec, so the server embeds text queries with MiniLM as for a real index, and queries
land on the same cone as the rows. The added clips are benchmarks/search_data.py's records
(about 7,430 games of 237 clips over 10 seasons and 30 teams), with the corpus's captions for
BM25. Written to <work>/index (what benchmarks/soak.py serves from that --work).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Iterator, Sequence
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from search_data import BLOCK, gen_clips, row_of
from soak import SPORT, prepare_corpus

from playscout.corpus import ClipRecord, Corpus
from playscout.embed import KeyedEmbedder, make_embedder
from playscout.embed.factory import MINILM
from playscout.search.embedded.build import AnnOptions, SportSource, build_index


class AroundCaptions(KeyedEmbedder):
    """Caption vectors by clip id: the corpus's own clips get MiniLM's vector of their caption;
    an added clip (search_data's '<game>_<i>' ids) row r gets unit(C[r mod m] + noise).
    Queries are embedded by MiniLM (`query`), whose spec the index records."""

    def __init__(self, own: dict[str, np.ndarray], query: Any, noise: float) -> None:
        self.query, self.made_on, self.own = query, None, own
        self.centres = np.unique(np.stack(list(own.values())), axis=0)
        self.noise = noise / math.sqrt(self.centres.shape[1])

    def rows(self, rows: np.ndarray) -> np.ndarray:
        out = np.empty((len(rows), self.centres.shape[1]), dtype=np.float32)
        for b in np.unique(rows // BLOCK):
            pick = rows // BLOCK == b
            r = rows[pick]
            rng = np.random.default_rng((5, int(b)))
            noise = rng.standard_normal((BLOCK, out.shape[1])).astype(np.float32)[r % BLOCK]
            x = self.centres[r % len(self.centres)] + noise * self.noise
            out[pick] = x / np.linalg.norm(x, axis=1, keepdims=True)
        return out

    def vectors_for(self, sport: str, ids: Sequence[str]) -> np.ndarray:
        out = np.empty((len(ids), self.centres.shape[1]), dtype=np.float32)
        added = [i for i, c in enumerate(ids) if c not in self.own]
        for i, c in enumerate(ids):
            if c in self.own:
                out[i] = self.own[c]
        if added:
            out[added] = self.rows(np.asarray([row_of(ids[i]) for i in added], dtype=np.int64))
        return out


def build(work: Path, clips: int, noise: float, ann: AnnOptions) -> dict[str, Any]:
    corpus_dir = prepare_corpus(work)
    corpus = Corpus(corpus_dir)
    minilm = make_embedder(MINILM)
    own = list(corpus.iter_clips(SPORT))
    vecs = np.asarray(minilm.embed_documents([c.caption for c in own]), dtype=np.float32)
    captions = AroundCaptions({c.clip_id: v for c, v in zip(own, vecs, strict=True)}, minilm, noise)
    added = max(0, clips - len(own))
    texts = [c.caption for c in own if c.caption]

    seen: dict[str, int] = {}

    def progress(stage: str, done: int, total: int | None) -> None:
        if done // 250_000 != seen.get(stage, -1):
            seen[stage] = done // 250_000
            print(f"  .. {stage} {done}", file=sys.stderr, flush=True)

    stream: Iterator[ClipRecord] = chain(own, gen_clips(added, texts))
    t0 = time.perf_counter()
    summary = build_index(
        work / "index",
        [SportSource(SPORT, corpus.iter_documents(SPORT), stream)],
        doc_embedder=minilm,
        caption_embedder=captions,
        progress=progress,
        overwrite=True,
        ann=ann,
    )
    info = summary.sports[SPORT]
    return {
        "clips": len(own) + added,
        "own_clips": len(own),
        "centres": len(captions.centres),
        "build_s": round(time.perf_counter() - t0, 1),
        "index_gb": round(summary.size_bytes / 1e9, 2),
        "caption_ann": info["channels"]["caption"]["ann"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--clips", type=int, default=1_760_230, help="rows in the index, in all")
    ap.add_argument("--noise", type=float, default=0.6, help="norm of an added row's noise")
    ap.add_argument(
        "--ann-queries",
        type=int,
        default=AnnOptions.queries,
        help="build-time recall queries per query set (search.ann_queries)",
    )
    ap.add_argument(
        "--filter-shares",
        default=",".join(str(s) for s in AnnOptions.filter_shares),
        help="filter shares the build measures budgets at, beside the smallest ('' = only it)",
    )
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    shares = tuple(float(x) for x in args.filter_shares.split(",") if x)
    ann = AnnOptions(queries=args.ann_queries, filter_shares=shares)
    result = build(args.work, args.clips, args.noise, ann)
    ann = result.pop("caption_ann")
    print(result)
    print({k: ann.get(k) for k in ("kind", "nlist", "nprobe", "recall", "recall_by_queries")})
    print({"adaptive": ann.get("adaptive"), "filtered": ann.get("filtered")})


if __name__ == "__main__":
    main()
