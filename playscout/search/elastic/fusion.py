"""What ES scores need before the shared RRF fusion (search/core/fusion.py; ES's own rrf
retriever needs an Enterprise licence): cosine back from ES's kNN score, and ties re-broken by
key so both backends order equal scores alike."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

Hit = TypeVar("Hit", bound=tuple[Any, ...])


def knn_cosine(es_score: float) -> float:
    """ES reports cosine kNN scores as (1 + cos) / 2; the interface wants cos."""
    return 2.0 * es_score - 1.0


def ranked(hits: Iterable[Hit]) -> list[Hit]:
    """(key, score, ...) best first; ES orders equal scores by internal doc id, re-sort so that
    ties break by key, as in the embedded backend."""
    return sorted(hits, key=lambda h: (-h[1], h[0]))
