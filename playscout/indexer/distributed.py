"""Embed a corpus's captions or document passages across workers with Ray Data (optional
extra `ray`), or in-process, into the consolidated precomputed-vector layout
(`<out>/<sport>/vectors.npy` + `ids.txt`, embed.write_consolidated) that index builds read.

Both paths run the same code: each worker builds its embedder from the spec (make_embedder),
so a Ray run and a local run give the same vectors in the same id order."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np

from playscout.corpus import Corpus
from playscout.embed import EmbedderSpec, EmbeddingError, make_embedder, write_consolidated
from playscout.embed.embedder import made_on
from playscout.embed.keyed import write_spec
from playscout.errors import install_hint
from playscout.search.core.passages import split_passages

What = Literal["captions", "documents"]


def iter_records(corpus: Corpus, sport: str, what: What) -> Iterator[tuple[str, str]]:
    """(id, text): clip id + caption, or `<doc_id>#<n>` + passage text (the ES passage id)."""
    if what == "captions":
        for clip in corpus.iter_clips(sport):
            yield clip.clip_id, clip.caption
    elif what == "documents":
        for doc in corpus.iter_documents(sport):
            for i, (s, e) in enumerate(split_passages(doc.text)):
                yield f"{doc.doc_id}#{i}", doc.text[s:e]
    else:
        raise ValueError(f"what must be 'captions' or 'documents', not {what!r}")


def _spec_dict(spec: EmbedderSpec | Mapping[str, Any]) -> dict[str, Any]:
    return spec.model_dump(mode="json") if isinstance(spec, EmbedderSpec) else dict(spec)


def _embed_local(spec: dict[str, Any], texts: Sequence[str], batch_size: int) -> np.ndarray:
    emb = make_embedder(spec)
    blocks = [
        np.asarray(emb.embed_documents(list(texts[i : i + batch_size])), dtype=np.float32)
        for i in range(0, len(texts), batch_size)
    ]
    return np.concatenate(blocks) if blocks else np.zeros((0, emb.dim), np.float32)


class _RayEmbed:
    """A Ray Data actor: the model loads once per worker, not once per batch."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.embedder = make_embedder(spec)

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        vecs = self.embedder.embed_documents([str(t) for t in batch["text"]])
        return {"row": batch["row"], "vector": np.asarray(vecs, dtype=np.float32)}


def _embed_ray(
    spec: dict[str, Any], texts: Sequence[str], batch_size: int, num_workers: int
) -> np.ndarray:
    import ray

    items = ray.data.from_items([{"row": i, "text": t} for i, t in enumerate(texts)])
    ds = items.map_batches(
        _RayEmbed,
        fn_constructor_args=(spec,),
        batch_size=batch_size,
        batch_format="numpy",
        concurrency=num_workers,
    )
    out = np.zeros((len(texts), int(spec["dim"])), dtype=np.float32)
    seen = np.zeros(len(texts), dtype=bool)
    for batch in ds.iter_batches(batch_format="numpy", batch_size=None):
        rows = np.asarray(batch["row"], dtype=np.int64)
        vec = np.asarray(batch["vector"])
        out[rows] = np.stack(list(vec)) if vec.dtype == object else vec
        seen[rows] = True
    if not seen.all():
        raise RuntimeError(f"Ray returned {int(seen.sum())} of {len(texts)} vectors")
    return out


def embed_corpus(
    corpus_dir: Path | str,
    out_dir: Path | str,
    spec: EmbedderSpec | Mapping[str, Any],
    what: What = "captions",
    use_ray: bool = False,
    num_workers: int = 2,
    batch_size: int = 256,
    sports: Sequence[str] | None = None,
) -> dict[str, int]:
    """Vectors per sport, written with write_consolidated; returns {sport: rows}.

    With use_ray, connects to a running cluster if ray.init() was called, else starts a local
    one; one worker actor per `num_workers`, each with its own embedder."""
    spec_d = _spec_dict(spec)
    # The driver loads the model only when it embeds (or needs the dim): a Ray driver may have
    # no GPU for a spec that names one. The process keeps the model; _embed_local reuses it.
    local = make_embedder(spec_d) if not use_ray or "dim" not in spec_d else None
    if local is not None:
        spec_d.setdefault("dim", local.dim)
    if use_ray:
        try:
            import ray
        except ImportError as exc:
            raise EmbeddingError(f"--ray needs Ray: {install_hint('ray')}") from exc
        if not ray.is_initialized():
            ray.init(num_cpus=num_workers, include_dashboard=False)
    corpus = Corpus(corpus_dir)
    counts: dict[str, int] = {}
    for sport in sports or corpus.sports():
        ids, texts = [], []
        for rid, text in iter_records(corpus, sport, what):
            ids.append(rid)
            texts.append(text)
        if use_ray:
            vecs = _embed_ray(spec_d, texts, batch_size, num_workers)
        else:
            vecs = _embed_local(spec_d, texts, batch_size)
        write_consolidated(out_dir, sport, ids, vecs)
        counts[sport] = len(ids)
    write_spec(out_dir, spec_d, None if use_ray or local is None else made_on(local))
    return counts
