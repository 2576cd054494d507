"""Memory and disk sizing of the Elasticsearch backend for the full T9 corpus.

    python benchmarks/es_sizing.py [--games 6] [--seed 0] [--embed-sample 512]

Measured here: the JSON `_source` bytes per clip / document / passage record and passages per
document, from a generated corpus sent through the backend's own bulk-action code (vectors are
excluded from `_source` by the mapping, so these are the stored bytes before LZ4); optionally
MiniLM embedding throughput on this machine. Computed (not measured): vector and HNSW sizes by
the formulas of the ES guide "Tune approximate kNN search" -> "Ensure data nodes have enough
memory" (https://www.elastic.co/guide/en/elasticsearch/reference/current/tune-knn-search.html):
  float: n * dims * 4   int8: n * (dims + 4)   int4: n * (dims/2 + 4)   bbq: n * (dims/8 + 14)
  HNSW graph: n * 4 * m  (m = 16 by default)
and on disk quantized fields keep the float32 vectors too ("increase disk usage ... by up to
25%" for int8). Inverted-index, doc-values and LZ4 effects on `_source` are not modelled.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import orjson

from playscout.corpus import Corpus
from playscout.search.elastic.ingest import SportStats, clip_actions, doc_actions
from playscout.synthetic import generate_corpus

T9_CLIPS = 1_760_230
T9_DOCS = 33_307
HNSW_M = 16
GIB = 1024**3


@dataclass
class Measured:
    clip_bytes: float
    doc_bytes: float
    passage_bytes: float
    passages_per_doc: float
    clips: int
    docs: int


def measure(games: int, seed: int) -> Measured:
    with tempfile.TemporaryDirectory() as tmp:
        generate_corpus(Path(tmp), games=games, seed=seed)
        corpus = Corpus(tmp)
        clip_sizes: list[int] = []
        doc_sizes: list[int] = []
        passage_sizes: list[int] = []
        for sport in corpus.sports():
            stats = SportStats()
            for act in clip_actions(sport, corpus.iter_clips(sport), "c", None, None, stats):
                clip_sizes.append(len(orjson.dumps(act["_source"])))
            acts = doc_actions(sport, corpus.iter_documents(sport), "d", "p", None, stats)
            for act in acts:
                size = len(orjson.dumps(act["_source"]))
                (doc_sizes if act["_index"] == "d" else passage_sizes).append(size)
    return Measured(
        statistics.fmean(clip_sizes),
        statistics.fmean(doc_sizes),
        statistics.fmean(passage_sizes),
        len(passage_sizes) / len(doc_sizes),
        len(clip_sizes),
        len(doc_sizes),
    )


def vector_ram(n: int, dims: int, kind: str) -> float:
    per = {"float": dims * 4, "int8": dims + 4, "int4": dims / 2 + 4, "bbq": dims / 8 + 14}[kind]
    return n * per + n * 4 * HNSW_M


def vector_disk(n: int, dims: int, kind: str) -> float:
    raw = n * dims * 4
    return raw + (vector_ram(n, dims, kind) if kind != "float" else n * 4 * HNSW_M)


def embed_rate(sample: int) -> float | None:
    if sample <= 0:
        return None
    from playscout.embed import MiniLMEmbedder

    emb = MiniLMEmbedder(batch_size=64)
    texts = [
        f"Player {i} drives to the basket for a layup in the second quarter" for i in range(sample)
    ]
    emb.embed_documents(texts[:64])
    t0 = time.perf_counter()
    emb.embed_documents(texts)
    return sample / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--passages", type=int, default=0, help="override the passage count")
    ap.add_argument("--embed-sample", type=int, default=0, help="measure MiniLM texts/s")
    args = ap.parse_args()
    m = measure(args.games, args.seed)
    passages = args.passages or round(T9_DOCS * m.passages_per_doc)
    print(f"measured on {m.clips} clips / {m.docs} docs (synthetic, {args.games} games/sport):")
    print(
        f"  _source bytes: clip {m.clip_bytes:.0f}, document {m.doc_bytes:.0f}, "
        f"passage {m.passage_bytes:.0f}; passages/doc {m.passages_per_doc:.2f} "
        f"-> {passages:,} passages for {T9_DOCS:,} docs"
    )
    print("\n| records | n | _source (GiB, pre-LZ4) |\n|---|---:|---:|")
    for name, n, b in (
        ("clips", T9_CLIPS, m.clip_bytes),
        ("documents", T9_DOCS, m.doc_bytes),
        ("passages", passages, m.passage_bytes),
    ):
        print(f"| {name} | {n:,} | {n * b / GIB:.2f} |")
    rows = [
        ("clips visual (InternVideo2)", T9_CLIPS, 512),
        ("clips caption (BGE-M3)", T9_CLIPS, 1024),
        ("clips caption (MiniLM)", T9_CLIPS, 384),
        ("passages (BGE-M3)", passages, 1024),
        ("passages (MiniLM)", passages, 384),
    ]
    print(
        "\n| vector field | n | dims | index_options | RAM for fast kNN (GiB) | disk (GiB) |"
        "\n|---|---:|---:|---|---:|---:|"
    )
    for name, n, dims in rows:
        for kind in ("float", "int8", "bbq"):
            label = {"float": "hnsw", "int8": "int8_hnsw", "bbq": "bbq_hnsw"}[kind]
            ram, disk = vector_ram(n, dims, kind) / GIB, vector_disk(n, dims, kind) / GIB
            print(f"| {name} | {n:,} | {dims} | {label} | {ram:.2f} | {disk:.2f} |")
    rate = embed_rate(args.embed_sample)
    if rate:
        hours = T9_CLIPS / rate / 3600
        print(f"\nMiniLM on this machine: {rate:.0f} captions/s -> {hours:.1f} h for all clips")


if __name__ == "__main__":
    main()
