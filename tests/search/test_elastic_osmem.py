"""The real elasticsearch-py wire path (bulk, aliases, search, mget) against osmem-server, an
in-memory OpenSearch-compatible *emulator* started on 127.0.0.1 (no real ES can run here,
docs/install.md, Elasticsearch). osmem has no dense_vector/knn, so indices are built without vectors:
the rules level of the conformance suite (BM25, filters, browse order, mget, error texts) runs
here as it does on the embedded backend, plus manifest, paging and the alias swap; vector search
is covered by the request-body tests and by the full conformance suite on a real cluster
(PLAYSCOUT_ES_URL)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

osmem_server = pytest.importorskip("osmem_server", reason="osmem-server (ES emulator) missing")
from elastic_transport import Transport  # noqa: E402
from elasticsearch import Elasticsearch  # noqa: E402

from playscout.search.backend_api import (  # noqa: E402
    ClipFilter,
    IndexOpenError,
    SearchBackend,
    SearchError,
)
from playscout.search.conformance import (  # noqa: E402
    KindFactory,
    RulesConformance,
    Source,
    corpus,
    corpus_sources,
    expected_clips,
)
from playscout.search.core.build import IndexExistsError, SportSource  # noqa: E402
from playscout.search.elastic import (  # noqa: E402
    ElasticsearchBackend,
    build_elasticsearch,
    open_elasticsearch,
    orphan_indices,
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


def with_visual_channel(backend: ElasticsearchBackend) -> ElasticsearchBackend:
    """osmem cannot store vectors, so the index has no clip channel; filter-only browsing never
    reads vectors, so a "visual" channel entry is added to the loaded manifest to reach it
    (the index then has the shape of an embedded index with video vectors only)."""
    for sport in backend.sports():
        backend.manifest["sports"][sport]["channels"]["visual"] = {"spec": {}, "dim": 0}
    return backend


@pytest.fixture(scope="module")
def backend(built: ElasticsearchBackend) -> ElasticsearchBackend:
    return with_visual_channel(built)


@pytest.fixture(scope="module")
def plain_mime_clients() -> Iterator[None]:
    """Clients the elasticsearch kind makes for itself speak plain JSON to osmem."""
    from playscout.search import elastic

    make = elastic.make_client
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(elastic, "make_client", partial(make, transport_class=PlainMimeTransport))
        yield


def rules_prefix(path: Path) -> str:
    return "rules-" + hashlib.sha1(str(path).encode()).hexdigest()[:10]


class OsmemFactory(KindFactory):
    """The elasticsearch kind built without vectors (osmem has none), opened with a "visual"
    channel entry (with_visual_channel); leftovers are orphan indices."""

    def __init__(self, es: Elasticsearch, url: str, minilm: Any) -> None:
        super().__init__("elasticsearch", lambda p: f"{url}/{rules_prefix(p)}", minilm, False)
        self.es = es

    def build(self, path: Path, sources: Iterable[Source], overwrite: bool = False) -> None:
        self.visual = None  # osmem stores no vectors
        super().build(path, sources, overwrite)

    def open(self, path: Path, query_embedders: bool = True) -> SearchBackend:
        b = super().open(path, query_embedders=False)
        assert isinstance(b, ElasticsearchBackend)
        return with_visual_channel(b)

    def leftovers(self, path: Path) -> list[str]:
        return orphan_indices(self.es, rules_prefix(path))


class TestOsmemRules(RulesConformance):
    """The rules level through the registered elasticsearch kind, on osmem."""

    kind = "elasticsearch"
    doc_vectors = False

    @pytest.fixture(scope="class")
    @classmethod
    def factory(
        cls, es: Elasticsearch, osmem: Any, minilm: Any, plain_mime_clients: None
    ) -> OsmemFactory:
        return OsmemFactory(es, osmem.url, minilm)


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


def test_browse_pages_with_search_after(backend: ElasticsearchBackend, monkeypatch: Any) -> None:
    from playscout.search.elastic import backend as mod

    monkeypatch.setattr(mod, "PAGE", 7)
    want = expected_clips("basketball", lambda c: True)
    got = backend.search_clips("basketball", None, ClipFilter(periods=[1, 2, 3, 4]), top_k=1000)
    assert [h.clip_id for h in got] == want and len(want) == 120
    assert len(backend.search_clips("basketball", None, ClipFilter(periods=[1]), top_k=9)) == 9


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


def test_verify_compares_aliases_and_counts_with_the_manifest(
    es: Elasticsearch, osmem: Any
) -> None:
    """`index verify` on Elasticsearch: ES checks its own segments; playscout checks that each
    alias points at the build's index and holds the counts the manifest records."""
    from playscout.search.elastic.verify import verify_elasticsearch

    url, p = osmem.url, "verified"
    build = build_elasticsearch(url, _tiny(), None, None, prefix=p, client=es)
    progress: list[tuple[str, int, int | None]] = []
    report = verify_elasticsearch(es, url, p, lambda *a: progress.append(a))
    assert report.ok and report.checked == 3 and progress == [("verify sports", 1, 1)]

    clips = build.indices[f"{p}-basketball-clips"]
    es.delete(index=clips, id=corpus.clips("basketball")[0].clip_id, refresh=True)
    es.indices.delete_alias(
        index=build.indices[f"{p}-basketball-docs"], name=f"{p}-basketball-docs"
    )
    bad = {b.name: b.reason for b in verify_elasticsearch(es, url, p).bad}
    assert bad == {
        f"{p}-basketball-clips": "holds 9 clips, the build wrote 10",
        f"{p}-basketball-docs": "alias is missing",
    }
