"""Precomputed document-side vectors (looked up by id, e.g. made by a Ray job) paired with the
live model that made them, which embeds queries. The pair records that model's spec, so the
index refuses a query model that differs from the one behind the stored vectors."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from playscout.embed.embedder import Embedder, EmbedderSpec, EmbeddingError
from playscout.embed.factory import make_embedder
from playscout.embed.precomputed import PrecomputedVectors
from playscout.embed.release import identity

SPEC_FILE = "embedder.json"


class StoredVectors(Protocol):
    """Vectors looked up by id: PrecomputedVectors, or the release's caption vectors."""

    @property
    def dim(self) -> int: ...

    def vectors_for(self, sport: str, ids: Sequence[str]) -> np.ndarray: ...


class KeyedEmbedder:
    """`made_on`: the device and dtype that made the stored vectors (embed.device), as
    `embedder.json` recorded it; None for vectors written before it was recorded. `identity`:
    what made the stored vectors (embed/release.identity), when known better than the query
    model's spec says (the release layout, or an embedder.json that only declares it)."""

    def __init__(
        self,
        vectors: StoredVectors,
        query: Embedder,
        made_on: dict[str, str] | None = None,
        identity: dict[str, Any] | None = None,
    ) -> None:
        if vectors.dim != query.dim:
            raise EmbeddingError(
                f"stored vectors are {vectors.dim}-d but the query model gives {query.dim}-d"
            )
        self.vectors, self.query, self.made_on = vectors, query, made_on
        own = getattr(vectors, "identity", None)
        self.identity = identity or (own if isinstance(own, dict) and own.get("model") else None)

    @property
    def dim(self) -> int:
        return self.query.dim

    def spec(self) -> EmbedderSpec:
        return self.query.spec()

    def vectors_for(self, sport: str, ids: Sequence[str]) -> np.ndarray:
        return self.vectors.vectors_for(sport, ids)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.query.embed_queries(texts)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        raise EmbeddingError("keyed vectors are looked up by id (vectors_for), not by text")


def write_spec(
    out_dir: Path | str,
    spec: EmbedderSpec | dict[str, Any],
    made_on: dict[str, str] | None = None,
) -> None:
    """`embedder.json`: the spec that embeds queries (without the device it ran on: the
    vectors are read on other machines) and `made_on`, the device and dtype that made them."""
    data = spec.model_dump(mode="json") if isinstance(spec, EmbedderSpec) else dict(spec)
    options = {k: v for k, v in dict(data.get("options") or {}).items() if k != "device"}
    data = {**data, "options": options}
    if made_on:
        data["made_on"] = dict(made_on)
    (Path(out_dir) / SPEC_FILE).write_text(json.dumps(data, indent=1))


def load_keyed(directory: Path | str) -> KeyedEmbedder:
    """Vectors written by `playscout index embed` (or distributed.embed_corpus)."""
    path = Path(directory) / SPEC_FILE
    if not path.is_file():
        raise EmbeddingError(
            f"{directory}: no {SPEC_FILE}; write the vectors with `playscout index embed`"
        )
    data = json.loads(path.read_text())
    made_on = data.pop("made_on", None)
    query = make_embedder(data)
    spec = query.spec()
    declared = identity(
        spec.model if spec.kind == "openai" else spec.kind, "declared", by=SPEC_FILE
    )
    return KeyedEmbedder(PrecomputedVectors(directory), query, made_on, declared)


def embed_distinct(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """embed_documents over each distinct text once, rows in `texts` order: corpora repeat
    texts (empty captions, identical box-score lines), and a copy costs a model pass."""
    distinct = list(dict.fromkeys(texts))
    vectors = np.asarray(embedder.embed_documents(distinct))
    if len(distinct) == len(texts):
        return vectors
    row = {text: i for i, text in enumerate(distinct)}
    return vectors[[row[t] for t in texts]]


def caption_vectors(
    embedder: Embedder, sport: str, ids: Sequence[str], texts: Sequence[str]
) -> np.ndarray:
    """Vectors of a batch of records: looked up by id for keyed embedders, else embedded."""
    if isinstance(embedder, KeyedEmbedder):
        return embedder.vectors_for(sport, ids)
    return embed_distinct(embedder, texts)
