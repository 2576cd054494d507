"""The conformance suite against a real Elasticsearch 8/9 cluster. It runs only when
PLAYSCOUT_ES_URL is set (no ES server can run on the CI machines):

    docker compose -f docker/elasticsearch.yml up -d
    PLAYSCOUT_ES_URL=http://127.0.0.1:9200 .venv/bin/pytest tests/search -k elastic
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from playscout.search.backend_api import ClipFilter, SearchBackend
from playscout.search.core.build import SportSource
from playscout.search.elastic import (
    ElasticsearchBackend,
    build_elasticsearch,
    make_client,
    open_elasticsearch,
    orphan_indices,
)
from tests.search import corpus
from tests.search.conformance import BackendConformance, Source, all_captions

ES_URL = os.environ.get("PLAYSCOUT_ES_URL")
pytestmark = pytest.mark.skipif(
    not ES_URL, reason="set PLAYSCOUT_ES_URL to a test Elasticsearch cluster to run this suite"
)


class ElasticFactory:
    """One index prefix per conformance index path; every index it made is deleted at the end."""

    doc_vectors = True

    def __init__(self, minilm: Any) -> None:
        assert ES_URL is not None
        self.url = ES_URL
        self.es = make_client(ES_URL, request_timeout=120)
        self.minilm = minilm
        self.visual = corpus.CaptionVideoVectors(minilm, all_captions())
        self.tower = corpus.VideoTextTower(minilm)
        self.prefixes: set[str] = set()

    def prefix(self, path: Path) -> str:
        p = "pstest-" + hashlib.sha1(str(path).encode()).hexdigest()[:10]
        self.prefixes.add(p)
        return p

    def build(self, path: Path, sources: Iterable[Source], overwrite: bool = False) -> None:
        build_elasticsearch(
            self.url,
            (SportSource(*s) for s in sources),
            doc_embedder=self.minilm,
            caption_embedder=self.minilm,
            visual_vectors=self.visual,
            prefix=self.prefix(path),
            overwrite=overwrite,
            client=self.es,
        )

    def open(self, path: Path, query_embedders: bool = True) -> SearchBackend:
        embedders: dict[str, Any] = {}
        if query_embedders:
            embedders = {"documents": self.minilm, "caption": self.minilm, "visual": self.tower}
        return open_elasticsearch(self.url, self.prefix(path), embedders, client=self.es)

    def close(self, backend: SearchBackend) -> None:
        assert isinstance(backend, ElasticsearchBackend)
        backend.close()

    def leftovers(self, path: Path) -> list[str]:
        return orphan_indices(self.es, self.prefix(path))

    def drop_all(self) -> None:
        for p in self.prefixes:
            self.es.indices.delete(index=f"{p}-*", allow_no_indices=True)
        self.es.close()


class TestElasticConformance(BackendConformance):
    @pytest.fixture(scope="class")
    @classmethod
    def factory(cls, minilm: Any) -> Any:
        f = ElasticFactory(minilm)
        yield f
        f.drop_all()

    def test_visual_search_does_not_fetch_captions(self, backend: SearchBackend) -> None:
        hits = backend.search_clips("basketball", "layup", ClipFilter(periods=[2]), top_k=10)
        assert hits and all(h.record.caption == "" for h in hits)
