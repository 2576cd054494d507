"""Retrieval quality on generated T9-style questions: BM25 vs dense (MiniLM) vs hybrid (RRF).

The question text is the query, as an agent's first search would be. Reports, per sport:
- docs R@20: share of the question's gold documents in the top 20 (no filters);
- game hit@20: a document of the gold game is in the top 20;
- clips R@100 (corpus): share of gold clips in the top 100 over the whole sport (caption channel);
- clips R@100 (game): the same with the gold game as filter (the agent's second hop).

    .venv/bin/python benchmarks/retrieval.py --games 120 --per-sport 60
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from playscout.corpus import Corpus
from playscout.indexer.build import build_from_corpus
from playscout.search import open_backend
from playscout.search.backend_api import ClipFilter, SearchMode
from playscout.synthetic import generate_corpus, generate_questions

MODES: tuple[SearchMode, ...] = ("bm25", "dense", "hybrid")


def recall(found: list[str], gold: list[str]) -> float:
    return sum(g in found for g in gold) / len(gold) if gold else 0.0


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--games", type=int, default=120)
    ap.add_argument("--per-sport", type=int, default=60)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--work", type=Path, default=None, help="Keep corpus and index here.")
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="ps-retrieval-"))
    corpus_dir, index_dir = work / "corpus", work / "index"

    t0 = time.perf_counter()
    generate_corpus(corpus_dir, games=args.games, seed=args.seed)
    generate_questions(corpus_dir, per_sport=args.per_sport, seed=args.seed)
    t1 = time.perf_counter()
    build_from_corpus(corpus_dir, index_dir, overwrite=True)
    t2 = time.perf_counter()
    print(
        f"corpus {args.games} games in {t1 - t0:.1f} s; index (MiniLM docs + captions) in {t2 - t1:.1f} s"
    )

    backend = open_backend(index_dir)
    corpus = Corpus(corpus_dir)
    header = f"{'sport':<11}{'mode':<8}{'n':>4}{'docs R@20':>11}{'game hit@20':>13}{'clips R@100 corpus':>20}{'clips R@100 game':>18}"
    print(header)
    print("-" * len(header))
    totals: dict[str, list[tuple[float, float, float, float]]] = {m: [] for m in MODES}
    for sport in corpus.sports():
        questions = [q for q in corpus.questions(sport) if q.gold and q.gold.clip_ids]
        for mode in MODES:
            rows = []
            for q in questions:
                assert q.gold is not None
                docs = backend.search_documents(sport, q.question, None, top_k=20, mode=mode)
                doc_ids = [h.doc_id for h in docs]
                game_hit = float(any(h.record.game_id == q.gold.game_id for h in docs))
                clips = backend.search_clips(
                    sport, q.question, None, top_k=100, channel="caption", mode=mode
                )
                in_game = backend.search_clips(
                    sport,
                    q.question,
                    ClipFilter(game_ids=[q.gold.game_id]),
                    top_k=100,
                    channel="caption",
                    mode=mode,
                )
                rows.append(
                    (
                        recall(doc_ids, q.gold.doc_ids),
                        game_hit,
                        recall([h.clip_id for h in clips], q.gold.clip_ids),
                        recall([h.clip_id for h in in_game], q.gold.clip_ids),
                    )
                )
            totals[mode] += rows
            means = [statistics.fmean(col) for col in zip(*rows, strict=True)]
            print(
                f"{sport:<11}{mode:<8}{len(rows):>4}"
                + "".join(f"{v:>{w}.3f}" for v, w in zip(means, (11, 13, 20, 18), strict=True))
            )
    print("-" * len(header))
    for mode in MODES:
        means = [statistics.fmean(col) for col in zip(*totals[mode], strict=True)]
        print(
            f"{'all':<11}{mode:<8}{len(totals[mode]):>4}"
            + "".join(f"{v:>{w}.3f}" for v, w in zip(means, (11, 13, 20, 18), strict=True))
        )
    print(f"work dir: {work}")


if __name__ == "__main__":
    main()
