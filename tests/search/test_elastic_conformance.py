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
from playscout.search.conformance import BackendConformance, KindFactory, Source
from playscout.search.elastic import (
    make_client,
    orphan_indices,
)

ES_URL = os.environ.get("PLAYSCOUT_ES_URL")
pytestmark = pytest.mark.skipif(
    not ES_URL, reason="set PLAYSCOUT_ES_URL to a test Elasticsearch cluster to run this suite"
)


def es_prefix(path: Path) -> str:
    return "pstest-" + hashlib.sha1(str(path).encode()).hexdigest()[:10]


class ElasticFactory(KindFactory):
    """The elasticsearch kind at ES_URL, one index prefix per conformance index path; every
    index it made is deleted at the end."""

    def __init__(self, minilm: Any) -> None:
        assert ES_URL is not None
        super().__init__("elasticsearch", lambda p: f"{ES_URL}/{es_prefix(p)}", minilm)
        self.es = make_client(ES_URL, request_timeout=120)
        self.prefixes: set[str] = set()

    def build(self, path: Path, sources: Iterable[Source], overwrite: bool = False) -> None:
        self.prefixes.add(es_prefix(path))
        super().build(path, sources, overwrite)

    def leftovers(self, path: Path) -> list[str]:
        return orphan_indices(self.es, es_prefix(path))

    def drop_all(self) -> None:
        for p in self.prefixes:
            self.es.indices.delete(index=f"{p}-*", allow_no_indices=True)
        self.es.close()


class TestElasticConformance(BackendConformance):
    kind = "elasticsearch"

    @pytest.fixture(scope="class")
    @classmethod
    def factory(cls, minilm: Any) -> Any:
        f = ElasticFactory(minilm)
        yield f
        f.drop_all()

    def test_visual_search_does_not_fetch_captions(self, backend: SearchBackend) -> None:
        hits = backend.search_clips("basketball", "layup", ClipFilter(periods=[2]), top_k=10)
        assert hits and all(h.record.caption == "" for h in hits)
