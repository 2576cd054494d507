"""Bulk actions for one sport: documents + passages, clips (+ caption/visual vectors).

Actions are generated lazily in embedding batches, so memory stays flat however large the
corpus is; `op_type=create` turns a duplicate id into a 409 and so into a loud error."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from elasticsearch import Elasticsearch, helpers

from playscout.corpus.models import ClipRecord, DocumentRecord
from playscout.embed.keyed import caption_vectors
from playscout.search.core.build import (
    MISSING_DATE,
    Progress,
    check_record_sport,
    duplicate_clip,
    duplicate_doc,
)
from playscout.search.core.units import DocUnits, PlayscoutUnits, Unit, unit_vectors
from playscout.search.elastic.client import RETRY_STATUS
from playscout.search.elastic.mappings import (
    CAPTION_VECTOR,
    DOC_VECTOR,
    OBSERVED_TEXT,
    VISUAL_VECTOR,
)

Action = dict[str, Any]
PASSAGE_BATCH = 512
CLIP_BATCH = 2048


@dataclass
class SportStats:
    documents: int = 0
    passages: int = 0
    clips: int = 0
    observed: int = 0  # clips with transcript or audio-event text
    games: set[str] = field(default_factory=set)
    teams: dict[str, None] = field(default_factory=dict)  # first-seen order
    players: dict[str, None] = field(default_factory=dict)

    def note(self, teams: Iterable[str], players: Iterable[str]) -> None:
        self.teams.update(dict.fromkeys(teams))
        self.players.update(dict.fromkeys(players))


def game_key(date: str | None, game_id: str) -> str:
    """Sortable game ordinal: games by date, then id (missing dates last), as embedded."""
    return f"{date or MISSING_DATE}|{game_id}"


def passage_id(doc_id: str, ord_: int) -> str:
    return f"{doc_id}#{ord_}"


def _unit_rows(vecs: Any, n: int, where: str) -> np.ndarray:
    arr = np.asarray(vecs, dtype=np.float32)
    if arr.ndim != 2 or arr.shape[0] != n:
        raise ValueError(f"{where} gave vectors of shape {arr.shape} for {n} items")
    norms = np.linalg.norm(arr, axis=1)
    if n and not np.allclose(norms[norms > 0], 1.0, atol=1e-3):
        raise ValueError(f"{where} returned vectors that are not L2-normalised")
    return arr


def doc_actions(
    sport: str,
    docs: Iterable[DocumentRecord],
    docs_index: str,
    passages_index: str,
    embedder: Any | None,
    stats: SportStats,
    units: DocUnits | None = None,
) -> Iterator[Action]:
    """`units`: how documents are cut and what is embedded (search/core/units.py)."""
    pending: list[Action] = []
    cut: DocUnits = units or PlayscoutUnits()
    made: list[Unit] = []

    def flush() -> Iterator[Action]:
        if embedder is not None and pending:
            where = f"{sport} document embedder"
            given = unit_vectors(made)  # the release's own vectors, else embedded here
            vecs = _unit_rows(
                given if given is not None else embedder.embed_documents([u.embed for u in made]),
                len(pending),
                where,
            )
            for act, vec in zip(pending, vecs, strict=True):
                act[DOC_VECTOR] = vec.tolist()
        for act in pending:
            src = dict(act)
            yield {
                "_op_type": "create",
                "_index": passages_index,
                "_id": passage_id(src["doc_id"], src["ord"]),
                "_source": src,
            }
        pending.clear()
        made.clear()

    for doc in docs:
        check_record_sport("document", doc.doc_id, doc.sport, sport)
        stats.documents += 1
        stats.note(doc.teams, doc.players)
        src = doc.model_dump(mode="json")
        yield {"_op_type": "create", "_index": docs_index, "_id": doc.doc_id, "_source": src}
        shared = {k: src[k] for k in ("doc_id", "game_id", "doc_type", "teams", "players")}
        shared |= {"season": doc.season, "date": doc.date}
        for i, unit in enumerate(cut.units(doc)):
            start, end = unit.start, unit.end
            pending.append(
                {**shared, "ord": i, "start": start, "end": end, "text": doc.text[start:end]}
            )
            made.append(unit)
            stats.passages += 1
        if len(pending) >= PASSAGE_BATCH:
            yield from flush()
    yield from flush()


def clip_actions(
    sport: str,
    clips: Iterable[ClipRecord],
    clips_index: str,
    caption_embedder: Any | None,
    visual: Any | None,
    stats: SportStats,
    units: DocUnits | None = None,
) -> Iterator[Action]:
    batch: list[ClipRecord] = []
    cut: DocUnits = units or PlayscoutUnits()

    def flush() -> Iterator[Action]:
        cap = vis = None
        if caption_embedder is not None:
            cap = caption_vectors(
                caption_embedder,
                sport,
                [c.clip_id for c in batch],
                [cut.caption_text(c) for c in batch],
            )
            cap = _unit_rows(cap, len(batch), f"{sport} caption embedder")
        if visual is not None:
            vis = visual.vectors_for(sport, [c.clip_id for c in batch])
            vis = _unit_rows(vis, len(batch), f"{sport} visual vector source")
        for i, clip in enumerate(batch):
            src = clip.model_dump(mode="json")
            src["game_key"] = game_key(clip.date, clip.game_id)
            heard = clip.observed_text()
            if heard:
                src[OBSERVED_TEXT] = heard
                stats.observed += 1
            if cap is not None:
                src[CAPTION_VECTOR] = cap[i].tolist()
            if vis is not None:
                src[VISUAL_VECTOR] = vis[i].tolist()
            yield {"_op_type": "create", "_index": clips_index, "_id": clip.clip_id, "_source": src}
        batch.clear()

    for clip in clips:
        check_record_sport("clip", clip.clip_id, clip.sport, sport)
        stats.clips += 1
        stats.games.add(clip.game_id)
        stats.note(clip.teams, clip.players)
        batch.append(clip)
        if len(batch) >= CLIP_BATCH:
            yield from flush()
    if batch:
        yield from flush()


def bulk_error(item: dict[str, Any], sport: str) -> Exception:
    """A failed bulk item as the error the embedded build would raise for the same input."""
    op = next(iter(item.values()))
    status, _id, index = op.get("status"), str(op.get("_id")), str(op.get("_index"))
    if status == 409:
        if f"-{sport}-clips-" in index:
            return duplicate_clip(_id, sport)
        doc_id = _id.rpartition("#")[0] if f"-{sport}-passages-" in index else _id
        return duplicate_doc(doc_id, sport)
    return RuntimeError(
        f"bulk indexing into {index} failed for {_id!r}: {status} {op.get('error')}"
    )


def bulk_load(
    es: Elasticsearch,
    actions: Iterable[Action],
    sport: str,
    what: str,
    progress: Progress | None,
    chunk_size: int = 500,
    max_retries: int = 5,
    initial_backoff: float = 1.0,
) -> int:
    """Stream actions; items rejected with 429/5xx are retried with exponential backoff
    (helpers.streaming_bulk), whole requests by the client's own retry policy."""
    done = 0
    for ok, item in helpers.streaming_bulk(
        es,
        actions,
        chunk_size=chunk_size,
        max_retries=max_retries,
        initial_backoff=initial_backoff,
        max_backoff=60.0,
        retry_on_status=RETRY_STATUS,
        raise_on_error=False,
        yield_ok=True,
    ):
        if not ok:
            raise bulk_error(item, sport)
        done += 1
        if progress and done % chunk_size == 0:
            progress(what, done, None)
    if progress:
        progress(what, done, done)  # all sent: the stage shows as finished
    return done
