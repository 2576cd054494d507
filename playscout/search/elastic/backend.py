"""ElasticsearchBackend: the SearchBackend over indices built by build_elasticsearch.

Documents are searched at passage level (BM25 and filtered kNN as two requests, fused here),
then grouped by document, as in the embedded backend; the visual channel asks ES for clip
fields without `caption`, so video search never reads ground-truth captions (its BM25 side
matches `observed_text`: transcript + audio events)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from elasticsearch import ApiError, BadRequestError, Elasticsearch, NotFoundError

from playscout.corpus.models import ClipRecord, DocumentRecord
from playscout.search.base import (
    ClipChannel,
    ClipFilter,
    ClipHit,
    DocFilter,
    DocHit,
    SearchError,
    SearchMode,
    visual_mode,
)
from playscout.search.elastic import queries as q
from playscout.search.elastic.client import make_client
from playscout.search.elastic.fusion import Branch, fuse, knn_cosine
from playscout.search.elastic.manifest import (
    check_embedders,
    entities_id,
    read_manifest,
)
from playscout.search.elastic.mappings import CAPTION_VECTOR, DOC_VECTOR, VISUAL_VECTOR
from playscout.search.elastic.names import Names, check_prefix
from playscout.search.embedded.highlight import clip_highlights, heard
from playscout.search.embedded.spec import QueryEmbedder

PASSAGE_SOURCE = ["doc_id", "ord", "text"]
CLIP_FIELDS = [f for f in ClipRecord.model_fields if f != "caption"]
CLIP_FIELDS_ORACLE = [*CLIP_FIELDS, "caption"]
DOC_FIELDS = list(DocumentRecord.model_fields)
PAGE = 1000  # browse page size (search_after keeps deep pages cheap)


def _empty(query: str | None) -> bool:
    return query is None or not query.strip()


def _check_sizes(top_k: int, window: int) -> None:
    if top_k <= 0 or window <= 0:
        raise SearchError(f"top_k and window must be positive (got {top_k}, {window})")


def passage_key(doc_id: str, ord_: int) -> str:
    """Tie-break key: document id first, then passage order (the embedded backend's rule)."""
    return f"{doc_id}\x00{ord_:012d}"


class ElasticsearchBackend:
    """Thread-safe for reads (the client is). `num_candidates_factor` sets kNN num_candidates
    to factor x k (T9: 10), capped at ES's 10,000."""

    def __init__(
        self,
        es: Elasticsearch,
        url: str,
        prefix: str = "playscout",
        embedders: Mapping[str, QueryEmbedder] | None = None,
        num_candidates_factor: float = 10.0,
        owns_client: bool = True,
    ) -> None:
        self.es, self.url = es, url
        self.names = Names(check_prefix(prefix))
        self.manifest = read_manifest(es, self.names, url)
        self.embedders = dict(embedders or {})
        check_embedders(self.manifest, self.embedders)
        self.num_candidates_factor = num_candidates_factor
        self._owns_client = owns_client
        self._entities: dict[str, tuple[list[str], list[str]]] = {}
        for sport in self.manifest["sports"]:
            doc = es.get(index=self.names.meta(), id=entities_id(sport))["_source"]
            self._entities[sport] = (sorted(doc["teams"]), sorted(doc["players"]))

    def close(self) -> None:
        if self._owns_client:
            self.es.close()

    # -- plumbing --------------------------------------------------------------
    def _info(self, sport: str) -> dict[str, Any]:
        info = self.manifest["sports"].get(sport)
        if info is None:
            raise SearchError(f"unknown sport {sport!r}; this index has {self.sports()}")
        return dict(info)

    def _search(self, index: str, body: dict[str, Any]) -> list[dict[str, Any]]:
        kwargs = {("source" if k == "_source" else k): v for k, v in body.items()}
        try:
            resp = self.es.search(index=index, **kwargs)
        except BadRequestError as exc:
            raise SearchError(f"Elasticsearch rejected the query: {exc.message}") from exc
        except NotFoundError as exc:
            raise SearchError(f"index {index} is missing: rebuild or reopen ({exc})") from exc
        return list(resp["hits"]["hits"])

    def _query_vector(self, key: str, query: str) -> list[float]:
        emb = self.embedders[key]
        return np.asarray(emb.embed_queries([query]), dtype=np.float32)[0].tolist()

    def _nc(self, k: int) -> int:
        return q.num_candidates_for(k, self.num_candidates_factor)

    def _browse(
        self, index: str, clauses: q.Clauses, sort: list[dict[str, Any]], top_k: int, src: Any
    ) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        after: list[Any] | None = None
        while len(out) < top_k:
            size = min(PAGE, top_k - len(out))
            hits = self._search(index, q.browse_body(clauses, sort, size, src, after))
            out += hits
            if len(hits) < size:
                break
            after = hits[-1]["sort"]
        return out

    # -- SearchBackend ---------------------------------------------------------
    def sports(self) -> list[str]:
        return sorted(self.manifest["sports"])

    def channels(self, sport: str) -> list[ClipChannel]:
        info = self._info(sport)
        have = set(info.get("channels", {}))
        if info.get("observed_clips"):
            have.add("visual")
        return [c for c in ("visual", "caption") if c in have]

    def entities(self, sport: str) -> tuple[list[str], list[str]]:
        self._info(sport)
        teams, players = self._entities[sport]
        return list(teams), list(players)

    def search_documents(
        self,
        sport: str,
        query: str | None,
        filters: DocFilter | None = None,
        top_k: int = 20,
        mode: SearchMode = "hybrid",
        window: int = 200,
    ) -> list[DocHit]:
        info = self._info(sport)
        _check_sizes(top_k, window)
        clauses = q.doc_filter_clauses(filters)
        if _empty(query):
            if filters is None or filters.is_empty():
                raise SearchError("an empty query needs at least one filter")
            index = self.names.alias(sport, "docs")
            hits = self._browse(index, clauses, q.DOC_SORT, top_k, DOC_FIELDS)
            recs = [DocumentRecord.model_validate(h["_source"]) for h in hits]
            return [DocHit(doc_id=r.doc_id, score=None, record=r) for r in recs]
        assert query is not None
        window = max(window, top_k)
        index = self.names.alias(sport, "passages")
        texts: dict[str, tuple[str, str]] = {}  # key -> (doc_id, passage text)

        def branch(hits: list[dict[str, Any]], dense: bool) -> Branch:
            out = []
            for h in hits:
                s = h["_source"]
                key = passage_key(s["doc_id"], int(s["ord"]))
                texts[key] = (s["doc_id"], s["text"])
                out.append((key, knn_cosine(h["_score"]) if dense else float(h["_score"])))
            return out

        bm25 = dense = None
        if mode in ("bm25", "hybrid"):
            body = q.bm25_body("text", query, clauses, window, PASSAGE_SOURCE)
            bm25 = branch(self._search(index, body), dense=False)
        if mode in ("dense", "hybrid"):
            if "documents" not in info.get("channels", {}):
                raise SearchError("this index has no document vectors: use mode='bm25'")
            if "documents" not in self.embedders:
                raise SearchError("no query embedder was given for documents at open")
            vec = self._query_vector("documents", query)
            body = q.knn_body(DOC_VECTOR, vec, clauses, window, self._nc(window), PASSAGE_SOURCE)
            dense = branch(self._search(index, body), dense=True)
        fused = fuse(mode, bm25, dense)
        order: list[str] = []
        first: dict[str, int] = {}
        parts: dict[str, list[str]] = {}
        for i, key in enumerate(fused.keys):
            doc_id, text = texts[key]
            if doc_id not in first:
                if len(order) >= top_k:
                    continue
                first[doc_id] = i
                order.append(doc_id)
                parts[doc_id] = []
            parts[doc_id].append(text)
        records = self.get_documents(sport, order)
        out: list[DocHit] = []
        for doc_id, rec in zip(order, records, strict=True):
            if rec is None:  # passage without its document: a broken build, say so
                raise SearchError(f"passage of {doc_id!r} found but the document is missing")
            i = first[doc_id]
            out.append(
                DocHit(
                    doc_id=doc_id,
                    score=fused.primary(i),
                    scores=fused.scores[i],
                    highlights=clip_highlights(parts[doc_id]),
                    record=rec,
                )
            )
        return out

    def search_clips(
        self,
        sport: str,
        query: str | None,
        filters: ClipFilter | None = None,
        top_k: int = 100,
        channel: ClipChannel = "visual",
        mode: SearchMode = "hybrid",
        window: int = 500,
    ) -> list[ClipHit]:
        info = self._info(sport)
        _check_sizes(top_k, window)
        if channel not in self.channels(sport):
            raise SearchError(
                f"clip channel {channel!r} is not in the {sport} index; have {self.channels(sport)}"
            )
        clauses = q.clip_filter_clauses(filters)
        oracle = channel == "caption"
        src = CLIP_FIELDS_ORACLE if oracle else CLIP_FIELDS
        index = self.names.alias(sport, "clips")
        if _empty(query):
            if filters is None or filters.is_empty():
                raise SearchError("an empty query needs at least one filter")
            hits = self._browse(index, clauses, q.CLIP_SORT, top_k, src)
            recs = [ClipRecord.model_validate(h["_source"]) for h in hits]
            return [ClipHit(clip_id=r.clip_id, score=None, record=r) for r in recs]
        assert query is not None
        if channel == "visual":
            mode = visual_mode(
                mode,
                text=bool(info.get("observed_clips")),
                vectors="visual" in info.get("channels", {}),
                embedder="visual" in self.embedders,
            )
        if mode != "bm25" and channel not in self.embedders:
            raise SearchError(f"no query embedder was given for clip channel {channel!r} at open")
        window = max(window, top_k)
        k = window if mode == "hybrid" else top_k
        sources: dict[str, dict[str, Any]] = {}

        def branch(hits: list[dict[str, Any]], dense: bool) -> Branch:
            for h in hits:
                sources[h["_id"]] = h["_source"]
            return [(h["_id"], knn_cosine(h["_score"]) if dense else h["_score"]) for h in hits]

        bm25 = dense = None
        if mode in ("bm25", "hybrid"):
            body = q.bm25_body(q.CLIP_TEXT_FIELD[channel], query, clauses, k, src)
            bm25 = branch(self._search(index, body), False)
        if mode in ("dense", "hybrid"):
            field = CAPTION_VECTOR if oracle else VISUAL_VECTOR
            vec = self._query_vector(channel, query)
            body = q.knn_body(field, vec, clauses, k, self._nc(k), src)
            dense = branch(self._search(index, body), True)
        fused = fuse(mode, bm25, dense)
        out = []
        for i, cid in enumerate(fused.keys[:top_k]):
            rec = ClipRecord.model_validate(sources[cid])
            out.append(
                ClipHit(
                    clip_id=cid,
                    score=fused.primary(i),
                    scores=fused.scores[i],
                    highlights=clip_highlights([rec.caption]) if oracle else heard(rec, query),
                    record=rec,
                )
            )
        return out

    def _mget(self, index: str, ids: Sequence[str], fields: list[str]) -> list[dict | None]:
        if not ids:
            return []
        try:
            resp = self.es.mget(index=index, ids=list(ids), source_includes=fields)
        except ApiError as exc:
            raise SearchError(f"mget on {index} failed: {exc}") from exc
        return [d["_source"] if d.get("found") else None for d in resp["docs"]]

    def get_documents(self, sport: str, doc_ids: Sequence[str]) -> list[DocumentRecord | None]:
        self._info(sport)
        found = self._mget(self.names.alias(sport, "docs"), doc_ids, DOC_FIELDS)
        return [DocumentRecord.model_validate(s) if s is not None else None for s in found]

    def get_clips(
        self, sport: str, clip_ids: Sequence[str], include_caption: bool = False
    ) -> list[ClipRecord | None]:
        self._info(sport)
        fields = CLIP_FIELDS_ORACLE if include_caption else CLIP_FIELDS
        found = self._mget(self.names.alias(sport, "clips"), clip_ids, fields)
        return [ClipRecord.model_validate(s) if s is not None else None for s in found]


def open_elasticsearch(
    url: str,
    prefix: str = "playscout",
    embedders: Mapping[str, Any] | None = None,
    *,
    client: Elasticsearch | None = None,
    request_timeout: float = 30.0,
    num_candidates_factor: float = 10.0,
) -> ElasticsearchBackend:
    """Open an index set built by build_elasticsearch; embedders as for open_index
    ("documents" / "caption" / "visual"), each checked against the recorded spec."""
    es = client if client is not None else make_client(url, request_timeout=request_timeout)
    return ElasticsearchBackend(
        es, url, prefix, embedders, num_candidates_factor, owns_client=client is None
    )
