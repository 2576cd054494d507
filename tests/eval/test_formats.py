"""Each published-format loader against a small hand-made sample."""

from __future__ import annotations

from pathlib import Path

import pytest

from playscout.eval.metrics import RubricItem, rubric_score, video_miou
from playscout.eval.tasks import formats as f
from playscout.eval.tasks.external import rubric_hits
from playscout.eval.tasks.synthetic import pick_option

S = Path(__file__).parent / "samples"


def test_t1_t2_t3() -> None:
    t1 = f.load_t1_captions(S / "basketball_caption_val_1k.json")
    assert t1[0].id == "t1_617912_285" and t1[0].sport == "basketball" and "45-40" in t1[0].gold
    t2 = f.load_t2_mcq(S / "basketball_qa_val_10k.json")[0]
    assert t2.gold == 2 and t2.meta["options"][2] == "jump shot"
    assert pick_option("C", t2.meta["options"]) == 2
    assert pick_option("It was a jump shot.", t2.meta["options"]) == 2
    t3 = f.load_t3_queries(S / "basketball_val.json")
    assert len(t3) == 1 and t3[0].gold == "v/pos.mp4" and len(t3[0].meta["pool"]) == 3


def test_t4_t5_t6() -> None:
    t4 = f.load_t4_open(S / "qa.json")[0]
    assert t4.sport == "hockey" and t4.meta["question_type"] == "causal_counterfactual_reasoning"
    t5 = f.load_t5_forecast(S / "soccer_test.json")[0]
    assert t5.gold == 1 and t5.meta["options"] == ["Home", "Away", "Neither", "Both", "Unknown"]
    assert "<video>" not in t5.prompt
    t6 = f.load_t6_sample(S / "t6/basketball/single_game/Q1/s1")
    assert t6.sport == "basketball" and t6.gold == [
        "The Lakers won.",
        "The final score was 101-99.",
    ]


def test_t7_t8_tracks_and_goal_qa() -> None:
    tracks = f.load_mot_tracks(S / "bboxes.txt")
    assert set(tracks) == {"1", "2"} and tracks["1"][1] == (0.12, 0.1, 0.22, 0.3)
    scored = video_miou(tracks, tracks)
    assert scored is not None and scored.miou == pytest.approx(1.0)
    t8 = f.load_t8_goal_qa(S / "Q1.json")[0]
    assert t8.gold == 0 and t8.meta["jersey_number"] == 23


def test_gameplayqa_starbench_lcric() -> None:
    g = f.load_gameplayqa(S / "gameplayqa.json")[0]
    assert g.gold == 1 and g.meta["multi_video"] and g.meta["option_kinds"][g.gold] == "true"
    st = f.load_starbench(S / "starbench.json")[0]
    assert len(st.gold) == 2 and st.meta["multi_turn"]
    items = [RubricItem(**r) for r in st.gold[0]["rubric"]]
    assert [i.weight for i in items] == [5, 5]
    assert rubric_score(items, rubric_hits("The schedule comes first", items)) == 1.0
    assert rubric_score(items, rubric_hits("The schedule, then weather", items)) == 0.0
    lc = f.load_lcric(S / "lcric.json")
    assert [i.gold for i in lc] == [True, 2, 57.0]
