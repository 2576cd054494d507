"""The real elasticsearch-py wire path (bulk, aliases, search, mget) against osmem-server, an
in-memory OpenSearch-compatible *emulator* started on 127.0.0.1 (no real ES can run here,
docs/environment.md §1). osmem has no dense_vector/knn, so indices are built without vectors
and only BM25, filters, browse order, mget, manifest and the alias swap are exercised here;
vector search is covered by the request-body tests and by the conformance suite on a real
cluster (PLAYSCOUT_ES_URL)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

osmem_server = pytest.importorskip("osmem_server", reason="osmem-server (ES emulator) missing")
from elastic_transport import Transport  # noqa: E402
from elasticsearch import Elasticsearch  # noqa: E402

from playscout.search.base import (  # noqa: E402
    ClipFilter,
    DocFilter,
    IndexOpenError,
    SearchError,
)
from playscout.search.elastic import (  # noqa: E402
    ElasticsearchBackend,
    build_elasticsearch,
    open_elasticsearch,
    orphan_indices,
)
from playscout.search.embedded.build import IndexExistsError, SportSource  # noqa: E402
from tests.search import corpus  # noqa: E402
from tests.search.conformance import (  # noqa: E402
    CLIP_FILTER_CASES,
    DOC_FILTER_CASES,
    SPORTS,
    corpus_sources,
    expected_clips,
    expected_docs,
)

_COMPAT = re.compile(r"application/vnd\.elasticsearch\+([a-z-]+); compatible-with=\d+")


class PlainMimeTransport(Transport):
    """osmem answers 406 to the ES 9 client's compatibility mimetypes
    (`application/vnd.elasticsearch+json; compatible-with=9`); send plain JSON instead."""

    def perform_request(self, method: str, target: str, *, headers: Any = None, **kw: Any) -> Any:
        if headers is not None:
            headers = headers.copy()
            for name in ("accept", "content-type"):
                if headers.get(name):
                    headers[name] = _COMPAT.sub(r"application/\1", headers[name])
        return super().perform_request(method, target, headers=headers, **kw)


@pytest.fixture(scope="module")
def osmem() -> Iterator[Any]:
    server = osmem_server.OsmemServer.start(japanese=False, addr="127.0.0.1:0")
    assert server.url.startswith("http://127.0.0.1:")
    yield server
    server.close()


@pytest.fixture(scope="module")
def es(osmem: Any) -> Iterator[Elasticsearch]:
    client = Elasticsearch(osmem.url, request_timeout=10, transport_class=PlainMimeTransport)
    yield client
    client.close()


@pytest.fixture(scope="module")
def built(es: Elasticsearch, osmem: Any) -> ElasticsearchBackend:
    srcs = [SportSource(*s) for s in corpus_sources()]
    progress: list[tuple[str, int]] = []
    summary = build_elasticsearch(
        osmem.url,
        srcs,
        None,
        None,
        prefix="ostest",
        client=es,
        progress=lambda what, n, total: progress.append((what, n)),
    )
    assert summary.sports["basketball"]["documents"] == 15
    assert summary.sports["basketball"]["clips"] == 120
    assert ("basketball clips", 120) in progress
    return open_elasticsearch(osmem.url, prefix="ostest", client=es)


@pytest.fixture(scope="module")
def backend(built: ElasticsearchBackend) -> ElasticsearchBackend:
    """osmem cannot store vectors, so the index has no clip channel; filter-only browsing never
    reads vectors, so a "visual" channel entry is added to the loaded manifest to reach it."""
    for sport in SPORTS:
        built.manifest["sports"][sport]["channels"]["visual"] = {"spec": {}, "dim": 0}
    return built


def test_aliases_mappings_and_manifest(es: Elasticsearch, built: ElasticsearchBackend) -> None:
    m = built.manifest
    assert m["schema_version"] == 1 and m["format"] == "playscout-elasticsearch-index"
    assert (m["sports"]["basketball"]["passages"], m["sports"]["soccer"]["clips"]) == (17, 80)
    for alias, index in m["indices"].items():
        assert index == f"{alias}-{m['build_id']}"
        assert list(es.indices.get_alias(name=alias)) == [index]
    props = es.indices.get_mapping(index="ostest-basketball-clips")
    props = next(iter(props.values()))["mappings"]["properties"]
    assert props["game_key"]["type"] == props["clip_id"]["type"] == "keyword"
    assert props["period"]["type"] == "integer" and props["video_start"]["type"] == "float"
    assert props["date"]["type"] == "date"
    assert orphan_indices(es, "ostest") == []
    assert built.sports() == ["basketball", "soccer"]
    assert "Stephen Curry" in built.entities("basketball")[1]


def test_bm25_term_hit_and_scores(backend: ElasticsearchBackend) -> None:
    only = backend.search_documents("basketball", "overtime", mode="bm25")
    assert [h.doc_id for h in only] == ["401003_espn_report"]
    hits = backend.search_documents("basketball", "rebounds", mode="bm25", top_k=20)
    assert hits and [h.scores.bm25_rank for h in hits[:3]] == [1, 2, 3]
    assert all(h.scores.dense is None and h.score == h.scores.bm25 for h in hits)
    for h in hits:
        assert "rebound" in "\n... ".join(h.highlights).lower()
        assert len("\n... ".join(h.highlights)) <= 500


@pytest.mark.parametrize(
    ("name", "flt", "pred"), DOC_FILTER_CASES, ids=[c[0] for c in DOC_FILTER_CASES]
)
def test_doc_filters_browse_and_bm25(
    backend: ElasticsearchBackend, name: str, flt: Any, pred: Any
) -> None:
    want = expected_docs("basketball", pred)
    browse = backend.search_documents("basketball", None, flt, top_k=1000)
    assert [h.doc_id for h in browse] == want  # date then doc_id
    assert all(h.score is None for h in browse)
    hits = backend.search_documents("basketball", "points", flt, 1000, "bm25", 1000)
    assert {h.doc_id for h in hits} <= set(want)


@pytest.mark.parametrize(
    ("name", "flt", "pred"), CLIP_FILTER_CASES, ids=[c[0] for c in CLIP_FILTER_CASES]
)
def test_clip_filters_browse(backend: ElasticsearchBackend, name: str, flt: Any, pred: Any) -> None:
    want = expected_clips("basketball", pred)
    browse = backend.search_clips("basketball", None, flt, top_k=1000)
    assert [h.clip_id for h in browse] == want  # game order, then video start


def test_browse_pages_with_search_after(backend: ElasticsearchBackend, monkeypatch: Any) -> None:
    from playscout.search.elastic import backend as mod

    monkeypatch.setattr(mod, "PAGE", 7)
    want = expected_clips("basketball", lambda c: True)
    got = backend.search_clips("basketball", None, ClipFilter(periods=[1, 2, 3, 4]), top_k=1000)
    assert [h.clip_id for h in got] == want and len(want) == 120
    assert len(backend.search_clips("basketball", None, ClipFilter(periods=[1]), top_k=9)) == 9


def test_get_documents_and_clips(backend: ElasticsearchBackend) -> None:
    src = {d.doc_id: d for d in corpus.documents("basketball")}
    got = backend.get_documents("basketball", ["401002_espn_report", "nope"])
    assert got == [src["401002_espn_report"], None]
    assert backend.get_documents("soccer", ["401002_espn_report"]) == [None]
    clips = {c.clip_id: c for c in corpus.clips("basketball")}
    plain = backend.get_clips("basketball", ["401001_5", "bad", "401002_17"])
    assert plain[0] == clips["401001_5"].model_copy(update={"caption": ""}) and plain[1] is None
    assert (
        backend.get_clips("basketball", ["401002_17"], include_caption=True)[0]
        == clips["401002_17"]
    )


def test_errors(backend: ElasticsearchBackend) -> None:
    with pytest.raises(SearchError, match="no document vectors"):
        backend.search_documents("basketball", "points", mode="dense")
    with pytest.raises(SearchError, match="unknown sport"):
        backend.search_documents("curling", "stone")
    with pytest.raises(SearchError, match="YYYY-MM-DD"):
        backend.search_documents("basketball", None, DocFilter(date_from="12/01/2019"))
    with pytest.raises(SearchError, match="unknown doc type"):
        backend.search_documents("basketball", None, DocFilter(doc_types=["report"]))
    with pytest.raises(SearchError, match="at least one filter"):
        backend.search_clips("basketball", None, ClipFilter())
    with pytest.raises(SearchError, match="not in the basketball index"):
        backend.search_clips("basketball", "free kick", channel="caption", mode="bm25")


def _tiny(docs: Any = None, clips: Any = None) -> list[SportSource]:
    d = corpus.documents("basketball")[:4] if docs is None else docs
    c = corpus.clips("basketball")[:10] if clips is None else clips
    return [SportSource("basketball", d, c)]


def test_lifecycle_swap_failure_duplicates(es: Elasticsearch, osmem: Any) -> None:
    url, p = osmem.url, "lifecycle"
    with pytest.raises(IndexOpenError, match="no index"):
        open_elasticsearch(url, prefix=p, client=es)
    first = build_elasticsearch(url, _tiny(), None, None, prefix=p, client=es)
    with pytest.raises(IndexExistsError):
        build_elasticsearch(url, _tiny(), None, None, prefix=p, client=es)

    def exploding() -> Iterator[Any]:
        yield from corpus.documents("basketball")[:2]
        raise RuntimeError("source failed midway")

    with pytest.raises(RuntimeError, match="midway"):
        build_elasticsearch(
            url, _tiny(docs=exploding()), None, None, prefix=p, client=es, overwrite=True
        )
    docs = corpus.documents("basketball")[:2]
    with pytest.raises(ValueError, match="duplicate doc_id"):
        build_elasticsearch(
            url, _tiny(docs=docs + docs[:1]), None, None, prefix=p, client=es, overwrite=True
        )
    clips = corpus.clips("basketball")[:3]
    with pytest.raises(ValueError, match="duplicate clip id"):
        build_elasticsearch(
            url, _tiny(clips=clips + clips[:1]), None, None, prefix=p, client=es, overwrite=True
        )
    assert orphan_indices(es, p) == []
    b = open_elasticsearch(url, prefix=p, client=es)
    assert b.manifest["build_id"] == first.build_id  # failed builds left the old one serving
    assert (
        len(b.get_clips("basketball", [c.clip_id for c in corpus.clips("basketball")[:10]])) == 10
    )

    second = build_elasticsearch(
        url, _tiny(clips=[]), None, None, prefix=p, client=es, overwrite=True
    )
    b = open_elasticsearch(url, prefix=p, client=es)
    assert b.manifest["build_id"] == second.build_id != first.build_id
    assert b.get_clips("basketball", ["401001_0"]) == [None]
    left = set(es.indices.get_alias(index=f"{p}-*"))
    assert left == set(second.indices.values())  # the old build's indices were deleted


def test_heard_text_is_the_visual_channel_bm25(es: Elasticsearch, osmem: Any) -> None:
    """Parity with the embedded backend: an index with transcripts but no video vectors has a
    visual channel, and a default (hybrid) search there runs BM25 over observed_text alone."""
    build_elasticsearch(
        osmem.url,
        [SportSource("basketball", [], corpus.heard_clips())],
        None,
        None,
        prefix="heard",
        client=es,
    )
    b = open_elasticsearch(osmem.url, prefix="heard", client=es)
    assert b.manifest["sports"]["basketball"]["observed_clips"] == 3
    assert b.channels("basketball") == ["visual"]
    hits = b.search_clips("basketball", "buzzer beater logo")
    assert [h.clip_id for h in hits][:2] == ["401001_3", "401002_17"]  # equal text: id order
    assert {h.clip_id for h in hits} == {"401001_3", "401002_17", "401003_8"}
    assert hits[0].scores.bm25_rank == 1 and hits[0].scores.dense_rank is None
    assert hits[0].highlights == ["listen to this crowd, a buzzer beater from the logo! buzzer"]
    assert all(h.record.caption == "" for h in hits) and hits[0].record.audio_events == ["buzzer"]
    with pytest.raises(SearchError, match="no video vectors"):
        b.search_clips("basketball", "buzzer", mode="dense")
    got = b.get_clips("basketball", ["401003_8"])[0]
    assert got is not None and got.transcript == "buzzer sounds for the timeout"
