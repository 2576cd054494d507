"""ElasticsearchBackend: the SearchBackend over indices built by build_elasticsearch.

The search methods are BackendCore's (the same rules, fusion and grouping as the embedded
backend); this module answers its engine calls with ES requests: BM25 and filtered kNN as two
requests per search, fused client-side, documents searched at passage level. The visual channel
asks ES for clip fields without `caption`, so video search never reads ground-truth captions
(its BM25 side matches `observed_text`: transcript + audio events)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from elasticsearch import ApiError, BadRequestError, Elasticsearch, NotFoundError

from playscout.corpus.models import ClipRecord, DocumentRecord
from playscout.search.backend_api import ClipChannel, ClipFilter, DocFilter, SearchError
from playscout.search.core.backend import BackendCore
from playscout.search.core.fusion import Candidate, passage_key
from playscout.search.core.spec import QueryEmbedder
from playscout.search.elastic import queries as q
from playscout.search.elastic.client import make_client
from playscout.search.elastic.fusion import knn_cosine, ranked
from playscout.search.elastic.manifest import entities_id, read_manifest
from playscout.search.elastic.mappings import CAPTION_VECTOR, DOC_VECTOR, VISUAL_VECTOR
from playscout.search.elastic.names import Names, check_prefix

PASSAGE_SOURCE = ["doc_id", "ord", "text"]
CLIP_FIELDS = [f for f in ClipRecord.model_fields if f != "caption"]
CLIP_FIELDS_ORACLE = [*CLIP_FIELDS, "caption"]
DOC_FIELDS = list(DocumentRecord.model_fields)
PAGE = 1000  # browse page size (search_after keeps deep pages cheap)


def _clip_fields(include_caption: bool) -> list[str]:
    return CLIP_FIELDS_ORACLE if include_caption else CLIP_FIELDS


class ElasticsearchBackend(BackendCore):
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
        super().__init__(read_manifest(es, self.names, url), embedders)
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
        self._check_sport(sport)
        return dict(self.manifest["sports"][sport])

    def _search(self, index: str, body: dict[str, Any]) -> list[dict[str, Any]]:
        kwargs = {("source" if k == "_source" else k): v for k, v in body.items()}
        try:
            resp = self.es.search(index=index, **kwargs)
        except BadRequestError as exc:
            raise SearchError(f"Elasticsearch rejected the query: {exc.message}") from exc
        except NotFoundError as exc:
            raise SearchError(f"index {index} is missing: rebuild or reopen ({exc})") from exc
        return list(resp["hits"]["hits"])

    def _knn(
        self, index: str, field: str, vector: np.ndarray, clauses: q.Clauses, k: int, src: Any
    ) -> list[dict[str, Any]]:
        nc = q.num_candidates_for(k, self.num_candidates_factor)
        return self._search(index, q.knn_body(field, vector, clauses, k, nc, src))

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

    def _mget(self, index: str, ids: Sequence[str], fields: list[str]) -> list[dict | None]:
        if not ids:
            return []
        try:
            resp = self.es.mget(index=index, ids=list(ids), source_includes=fields)
        except ApiError as exc:
            raise SearchError(f"mget on {index} failed: {exc}") from exc
        return [d["_source"] if d.get("found") else None for d in resp["docs"]]

    # -- SearchBackend reads -----------------------------------------------------
    def channels(self, sport: str) -> list[ClipChannel]:
        info = self._info(sport)
        have = set(info.get("channels", {}))
        if info.get("observed_clips"):
            have.add("visual")
        return [c for c in ("visual", "caption") if c in have]

    def entities(self, sport: str) -> tuple[list[str], list[str]]:
        self._check_sport(sport)
        teams, players = self._entities[sport]
        return list(teams), list(players)

    def get_documents(self, sport: str, doc_ids: Sequence[str]) -> list[DocumentRecord | None]:
        self._check_sport(sport)
        found = self._mget(self.names.alias(sport, "docs"), doc_ids, DOC_FIELDS)
        return [DocumentRecord.model_validate(s) if s is not None else None for s in found]

    def get_clips(
        self, sport: str, clip_ids: Sequence[str], include_caption: bool = False
    ) -> list[ClipRecord | None]:
        self._check_sport(sport)
        fields = _clip_fields(include_caption)
        found = self._mget(self.names.alias(sport, "clips"), clip_ids, fields)
        return [ClipRecord.model_validate(s) if s is not None else None for s in found]

    # -- engine calls for BackendCore ----------------------------------------------
    # ES orders equal scores by internal doc id; `ranked` re-sorts so ties break by key.
    def _doc_scope(self, sport: str, filters: DocFilter | None) -> q.Clauses:
        return q.doc_filter_clauses(filters)

    @staticmethod
    def _passages(hits: list[dict[str, Any]], dense: bool) -> list[Candidate]:
        return ranked(
            (
                passage_key(h["_source"]["doc_id"], int(h["_source"]["ord"])),
                knn_cosine(h["_score"]) if dense else float(h["_score"]),
                h["_source"]["text"],
            )
            for h in hits
        )

    def _doc_bm25(self, sport: str, query: str, scope: q.Clauses, k: int) -> list[Candidate]:
        body = q.bm25_body("text", query, scope, k, PASSAGE_SOURCE)
        return self._passages(self._search(self.names.alias(sport, "passages"), body), False)

    def _doc_dense(
        self, sport: str, vector: np.ndarray, scope: q.Clauses, k: int
    ) -> list[Candidate]:
        index = self.names.alias(sport, "passages")
        return self._passages(self._knn(index, DOC_VECTOR, vector, scope, k, PASSAGE_SOURCE), True)

    def _has_doc_vectors(self, sport: str) -> bool:
        return "documents" in self._info(sport).get("channels", {})

    def _passage_text(self, sport: str, record: DocumentRecord, payload: Any) -> str:
        return str(payload)  # the passage text came with the hit

    def _browse_documents(self, sport: str, filters: DocFilter, top_k: int) -> list[DocumentRecord]:
        index = self.names.alias(sport, "docs")
        hits = self._browse(index, q.doc_filter_clauses(filters), q.DOC_SORT, top_k, DOC_FIELDS)
        return [DocumentRecord.model_validate(h["_source"]) for h in hits]

    def _clip_scope(self, sport: str, filters: ClipFilter | None) -> q.Clauses:
        return q.clip_filter_clauses(filters)

    @staticmethod
    def _clips(hits: list[dict[str, Any]], dense: bool) -> list[Candidate]:
        return ranked(
            (h["_id"], knn_cosine(h["_score"]) if dense else h["_score"], h["_source"])
            for h in hits
        )

    def _clip_bm25(
        self, sport: str, channel: ClipChannel, query: str, scope: q.Clauses, k: int
    ) -> list[Candidate]:
        src = _clip_fields(channel == "caption")
        body = q.bm25_body(q.CLIP_TEXT_FIELD[channel], query, scope, k, src)
        return self._clips(self._search(self.names.alias(sport, "clips"), body), False)

    def _clip_dense(
        self, sport: str, channel: ClipChannel, vector: np.ndarray, scope: q.Clauses, k: int
    ) -> list[Candidate]:
        oracle = channel == "caption"
        field = CAPTION_VECTOR if oracle else VISUAL_VECTOR
        index = self.names.alias(sport, "clips")
        return self._clips(self._knn(index, field, vector, scope, k, _clip_fields(oracle)), True)

    def _visual_sides(self, sport: str) -> tuple[bool, bool]:
        info = self._info(sport)
        return bool(info.get("observed_clips")), "visual" in info.get("channels", {})

    def _clip_records(
        self, sport: str, payloads: Sequence[Any], include_caption: bool
    ) -> list[ClipRecord]:
        return [ClipRecord.model_validate(src) for src in payloads]  # sources came with the hits

    def _browse_clips(
        self, sport: str, filters: ClipFilter, top_k: int, include_caption: bool
    ) -> list[ClipRecord]:
        index = self.names.alias(sport, "clips")
        clauses = q.clip_filter_clauses(filters)
        hits = self._browse(index, clauses, q.CLIP_SORT, top_k, _clip_fields(include_caption))
        return [ClipRecord.model_validate(h["_source"]) for h in hits]


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
