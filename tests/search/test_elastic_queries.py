"""Request bodies and mappings of the Elasticsearch backend against hand-written JSON: these run
everywhere (no server), so every filter translation is pinned even where no cluster exists."""

from __future__ import annotations

from typing import Any

import pytest

from playscout.corpus.models import ClipRecord
from playscout.search.backend_api import ClipFilter, DocFilter, HitScores, SearchError
from playscout.search.core.fusion import fuse
from playscout.search.elastic import mappings as mp
from playscout.search.elastic import queries as q
from playscout.search.elastic.backend import CLIP_FIELDS, CLIP_FIELDS_ORACLE
from playscout.search.elastic.fusion import knn_cosine, ranked
from playscout.search.elastic.ingest import SportStats, bulk_error, clip_actions, game_key

DOC_CASES: list[tuple[DocFilter, list[dict[str, Any]]]] = [
    (DocFilter(game_ids=["401001", "401003"]), [{"terms": {"game_id": ["401001", "401003"]}}]),
    (DocFilter(doc_ids=["a_espn_report"]), [{"terms": {"doc_id": ["a_espn_report"]}}]),
    (
        DocFilter(doc_types=["season_stat_player", "game_stat_team"]),
        [{"terms": {"doc_type": ["season_stat_player", "game_stat_team"]}}],
    ),
    (DocFilter(teams=["Boston Celtics"]), [{"terms": {"teams": ["Boston Celtics"]}}]),
    (DocFilter(players=["Stephen Curry"]), [{"terms": {"players": ["Stephen Curry"]}}]),
    (DocFilter(season=2019), [{"term": {"season": 2019}}]),
    (
        DocFilter(date_from="2019-01-10", date_to="2019-01-12"),
        [{"range": {"date": {"format": "strict_date", "gte": "2019-01-10", "lte": "2019-01-12"}}}],
    ),
    (
        DocFilter(date_from="2019-01-12"),
        [{"range": {"date": {"format": "strict_date", "gte": "2019-01-12"}}}],
    ),
    (
        DocFilter(date_to="2019-01-11"),
        [{"range": {"date": {"format": "strict_date", "lte": "2019-01-11"}}}],
    ),
    (DocFilter(game_ids=[]), [{"terms": {"game_id": []}}]),
    (
        DocFilter(teams=["Golden State Warriors"], doc_types=["espn_report"], date_to="2019-01-31"),
        [
            {"terms": {"doc_type": ["espn_report"]}},
            {"terms": {"teams": ["Golden State Warriors"]}},
            {"range": {"date": {"format": "strict_date", "lte": "2019-01-31"}}},
        ],
    ),
    (DocFilter(), []),
]

CLIP_CASES: list[tuple[ClipFilter, list[dict[str, Any]]]] = [
    (ClipFilter(game_ids=["401002"]), [{"terms": {"game_id": ["401002"]}}]),
    (ClipFilter(clip_ids=["401001_3"]), [{"terms": {"clip_id": ["401001_3"]}}]),
    (ClipFilter(periods=[1, 4]), [{"terms": {"period": [1, 4]}}]),
    (ClipFilter(teams=["Boston Celtics"]), [{"terms": {"teams": ["Boston Celtics"]}}]),
    (ClipFilter(players=["Anthony Davis"]), [{"terms": {"players": ["Anthony Davis"]}}]),
    (
        ClipFilter(time_start=102.0, time_end=130.0),
        [{"range": {"video_end": {"gt": 102.0}}}, {"range": {"video_start": {"lt": 130.0}}}],
    ),
    (ClipFilter(time_start=500.0), [{"range": {"video_end": {"gt": 500.0}}}]),
    (ClipFilter(time_end=30.0), [{"range": {"video_start": {"lt": 30.0}}}]),
    (ClipFilter(players=[]), [{"terms": {"players": []}}]),
    (
        ClipFilter(game_ids=["401001"], periods=[3], players=["LeBron James"]),
        [
            {"terms": {"game_id": ["401001"]}},
            {"terms": {"period": [3]}},
            {"terms": {"players": ["LeBron James"]}},
        ],
    ),
]


@pytest.mark.parametrize(("flt", "want"), DOC_CASES, ids=[str(c[0]) for c in DOC_CASES])
def test_doc_filter_clauses(flt: DocFilter, want: list[dict[str, Any]]) -> None:
    assert q.doc_filter_clauses(flt) == want


@pytest.mark.parametrize(("flt", "want"), CLIP_CASES, ids=[str(c[0]) for c in CLIP_CASES])
def test_clip_filter_clauses(flt: ClipFilter, want: list[dict[str, Any]]) -> None:
    assert q.clip_filter_clauses(flt) == want


def test_bad_doc_filters_are_errors() -> None:
    with pytest.raises(SearchError, match="YYYY-MM-DD"):
        q.doc_filter_clauses(DocFilter(date_from="12/01/2019"))
    with pytest.raises(SearchError, match="YYYY-MM-DD"):
        q.doc_filter_clauses(DocFilter(date_to="2019-1-1"))
    with pytest.raises(SearchError, match="unknown doc type"):
        q.doc_filter_clauses(DocFilter(doc_types=["report"]))
    assert q.doc_filter_clauses(None) == [] and q.clip_filter_clauses(None) == []


def test_bm25_body() -> None:
    f = q.doc_filter_clauses(DocFilter(season=2019))
    assert q.bm25_body("text", "double overtime", f, 200, ["doc_id", "ord", "text"]) == {
        "size": 200,
        "query": {
            "bool": {
                "must": [{"match": {"text": {"query": "double overtime"}}}],
                "filter": [{"term": {"season": 2019}}],
            }
        },
        "_source": ["doc_id", "ord", "text"],
        "track_total_hits": False,
    }


def test_knn_body_with_filter() -> None:
    f = q.clip_filter_clauses(ClipFilter(periods=[2], game_ids=["401001"]))
    body = q.knn_body("visual_vector", [0.5, -0.5], f, 500, q.num_candidates_for(500, 10.0), ["x"])
    assert body == {
        "size": 500,
        "knn": {
            "field": "visual_vector",
            "query_vector": [0.5, -0.5],
            "k": 500,
            "num_candidates": 5000,
            "filter": [{"terms": {"game_id": ["401001"]}}, {"terms": {"period": [2]}}],
        },
        "_source": ["x"],
        "track_total_hits": False,
    }
    assert "filter" not in q.knn_body("embedding", [1.0], [], 10, 100, [])["knn"]


def test_num_candidates_bounds() -> None:
    assert q.num_candidates_for(200, 10.0) == 2000  # T9: k=200, num_candidates=2000
    assert q.num_candidates_for(5, 10.0) == 100  # floor
    assert q.num_candidates_for(5000, 10.0) == 10_000  # ES cap
    assert q.num_candidates_for(300, 1.0) == 300  # never below k
    with pytest.raises(SearchError, match="10000"):
        q.knn_body("embedding", [1.0], [], 10_001, 10_000, [])


def test_browse_bodies() -> None:
    f = q.doc_filter_clauses(DocFilter(teams=["Arsenal"]))
    assert q.browse_body(f, q.DOC_SORT, 20, ["doc_id"]) == {
        "size": 20,
        "query": {"bool": {"filter": [{"terms": {"teams": ["Arsenal"]}}]}},
        "sort": [{"date": {"order": "asc", "missing": "_last"}}, {"doc_id": {"order": "asc"}}],
        "_source": ["doc_id"],
        "track_total_hits": False,
    }
    page2 = q.browse_body([], q.CLIP_SORT, 7, [], search_after=["2019-01-10|401001", 15.0, 1])
    assert page2["sort"] == [
        {"game_key": {"order": "asc"}},
        {"video_start": {"order": "asc"}},
        {"index": {"order": "asc"}},
    ]
    assert page2["search_after"] == ["2019-01-10|401001", 15.0, 1]


def test_game_key_orders_games_like_embedded() -> None:
    keys = [game_key("2019-02-01", "401003"), game_key(None, "000"), game_key("2019-01-10", "9")]
    assert sorted(keys) == ["2019-01-10|9", "2019-02-01|401003", "9999-99-99|000"]


def test_visual_channel_never_asks_for_captions() -> None:
    assert "caption" not in CLIP_FIELDS and "caption" in CLIP_FIELDS_ORACLE
    assert not set(mp.VECTOR_FIELDS) & set(CLIP_FIELDS_ORACLE)
    assert {"transcript", "audio_events"} <= set(CLIP_FIELDS)  # heard text is not oracle
    assert mp.OBSERVED_TEXT not in CLIP_FIELDS_ORACLE  # a search field, never read back


def test_clip_bm25_fields_per_channel() -> None:
    assert q.CLIP_TEXT_FIELD == {"caption": "caption", "visual": "observed_text"}
    body = q.bm25_body(q.CLIP_TEXT_FIELD["visual"], "buzzer", [], 500, CLIP_FIELDS)
    assert body["query"]["bool"]["must"] == [{"match": {"observed_text": {"query": "buzzer"}}}]
    assert body["_source"] == CLIP_FIELDS


def test_clip_actions_index_heard_text_only_where_there_is_some() -> None:
    base = ClipRecord(
        clip_id="g_0",
        sport="basketball",
        game_id="g",
        index=0,
        period=1,
        video_start=0.0,
        video_end=12.0,
        caption="oracle only",
    )
    heard = base.model_copy(
        update={
            "clip_id": "g_1",
            "index": 1,
            "transcript": " What a  shot! ",
            "audio_events": ["crowd cheering"],
        }
    )
    stats = SportStats()
    acts = list(clip_actions("basketball", [base, heard], "clips-b1", None, None, stats))
    assert "observed_text" not in acts[0]["_source"]
    src = acts[1]["_source"]
    assert src["observed_text"] == "What a shot! crowd cheering"
    assert src["transcript"] == " What a  shot! " and src["audio_events"] == ["crowd cheering"]
    assert stats.observed == 1 and stats.clips == 2
    props = mp.clips_mapping(None, None, "hnsw")["properties"]
    assert set(src) <= set(props)  # the strict mapping takes every field


def test_mappings() -> None:
    p = mp.passages_mapping(384, "int8_hnsw")
    assert p["dynamic"] == "strict" and p["_source"] == {"excludes": ["embedding"]}
    props = p["properties"]
    assert props["embedding"] == {
        "type": "dense_vector",
        "dims": 384,
        "index": True,
        "similarity": "cosine",
        "index_options": {"type": "int8_hnsw"},
    }
    assert props["text"] == {"type": "text", "analyzer": "english"}
    for f in ("doc_id", "game_id", "doc_type", "teams", "players"):
        assert props[f] == {"type": "keyword"}
    assert props["season"] == {"type": "integer"} and props["date"]["type"] == "date"
    assert "embedding" not in mp.passages_mapping(None, "hnsw")["properties"]
    c = mp.clips_mapping(384, 512, "flat")["properties"]
    assert c["visual_vector"]["dims"] == 512 and c["caption_vector"]["index_options"] == {
        "type": "flat"
    }
    assert c["video_start"] == c["clock_remaining_start"] == {"type": "float"}
    assert c["period"] == c["index"] == {"type": "integer"}
    assert c["game_key"] == c["clip_id"] == {"type": "keyword"}
    assert c["caption"]["analyzer"] == "english"
    assert mp.clips_mapping(None, 512, "hnsw")["properties"]["caption"]["index"] is False
    assert c["observed_text"] == {"type": "text", "analyzer": "english"}
    assert c["transcript"]["index"] is False and c["audio_events"]["index"] is False
    d = mp.docs_mapping()["properties"]
    assert d["text"]["index"] is False and d["date"]["type"] == "date"
    with pytest.raises(ValueError, match="index_options"):
        mp.dense_vector(384, "ivf")
    with pytest.raises(ValueError, match="dims"):
        mp.dense_vector(5000, "hnsw")
    assert mp.build_settings(2) == {
        "number_of_shards": 2,
        "number_of_replicas": 0,
        "refresh_interval": "-1",
    }


def test_fusion_is_rrf_of_own_ranks() -> None:
    assert knn_cosine(1.0) == 1.0 and knn_cosine(0.5) == 0.0
    # ES hits as they come back (ties in ES's internal order), re-ranked as the backend does
    bm25 = ranked([("b", 3.0, "pb"), ("a", 3.0, "pa"), ("c", 1.0, "pc")])  # tie: by key
    dense = ranked([("c", 0.9, "pc"), ("a", 0.1, "pa")])
    assert [h[0] for h in bm25] == ["a", "b", "c"]
    f = fuse("hybrid", bm25, dense)
    assert f.keys == ["a", "c", "b"] and f.payloads == ["pa", "pc", "pb"]
    assert f.scores[0] == HitScores(
        rrf=1 / 61 + 1 / 62, bm25=3.0, bm25_rank=1, dense=0.1, dense_rank=2
    )
    assert fuse("bm25", bm25, None).keys == ["a", "b", "c"]
    only_dense = fuse("dense", None, dense)
    assert only_dense.primary(0) == 0.9 and only_dense.scores[0].rrf is None


def test_bulk_errors_are_loud() -> None:
    dup = {
        "create": {
            "_index": "p-basketball-passages-b1",
            "_id": "401001_espn_report#3",
            "status": 409,
        }
    }
    assert "duplicate doc_id '401001_espn_report'" in str(bulk_error(dup, "basketball"))
    clip = {"create": {"_index": "p-basketball-clips-b1", "_id": "401001_3", "status": 409}}
    assert "duplicate clip id 401001_3" in str(bulk_error(clip, "basketball"))
    other = {"create": {"_index": "i", "_id": "x", "status": 400, "error": {"type": "mapper"}}}
    assert isinstance(bulk_error(other, "basketball"), RuntimeError)
