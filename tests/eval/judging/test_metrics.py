"""Every metric against hand-computed values."""

from __future__ import annotations

import pytest

from playscout.eval.judging.metrics import (
    RubricItem,
    accuracy,
    brier_score,
    calibration_error,
    chosen_option_probs,
    cohen_kappa,
    grouped_accuracy,
    iou,
    mean_abs_error,
    mean_video_miou,
    retrieval_metrics,
    rubric_score,
    video_miou,
    zero_based_rank,
)


def test_accuracy_and_groups() -> None:
    assert accuracy([True, False, True, True]) == 0.75
    assert accuracy([]) is None
    assert grouped_accuracy([("a", True), ("a", False), ("b", True)]) == {"a": 0.5, "b": 1.0}


def test_kappa_hand_computed() -> None:
    # 10 items: both right 4, both wrong 3, a right/b wrong 2, a wrong/b right 1.
    a = ["r"] * 4 + ["w"] * 3 + ["r"] * 2 + ["w"]
    b = ["r"] * 4 + ["w"] * 3 + ["w"] * 2 + ["r"]
    k, raw = cohen_kappa(a, b)
    # po = 0.7; pe = 0.6*0.5 + 0.4*0.5 = 0.5; kappa = 0.2/0.5 = 0.4
    assert raw == pytest.approx(0.7)
    assert k == pytest.approx(0.4)
    assert cohen_kappa(["r", "r"], ["r", "r"]) == (None, 1.0)


def test_l1() -> None:
    assert mean_abs_error([10, 12, 7], [11, 12, 4]) == pytest.approx(4 / 3)


# ---------------------------------------------------------------- T3 (reference: retrieval.py)


def test_t3_recall_and_medr_are_the_references() -> None:
    # 0-based ranks; R@K = % with rank < K; MedR = int(median) = int((3 + 7) / 2) = 5
    m = retrieval_metrics([0, 3, 7, 120], ks=(1, 5, 10, 100, 200))
    assert m == {"n": 4, "R@1": 25.0, "R@5": 50.0, "R@10": 75.0, "R@100": 75.0, "R@200": 100.0,
                 "MedR": 5}  # fmt: skip


def test_t3_edge_cases() -> None:
    assert retrieval_metrics([0, 1])["MedR"] == 0  # median 0.5 truncated toward zero
    assert retrieval_metrics([0, 1, 2], ks=(1,))["R@1"] == 33.3333  # rounded to 4 places
    assert retrieval_metrics([], ks=(1,)) == {"n": 0, "R@1": 0.0, "MedR": 0}
    assert zero_based_rank(1, 10) == 0  # stored ranks are 1-based
    assert zero_based_rank(None, 10) == 9  # not returned: last in the pool


# ---------------------------------------------------------------- T5 (reference: calc_ce.py)

T5_PROBS = [{"A": 0.7, "B": 0.2, "C": 0.1}, {"A": 0.5, "B": 0.4, "C": 0.1}]
T5_GOLD = ["A", "B"]


def test_t5_ce_over_every_option_unweighted_primary() -> None:
    # bins of 0.2: [.1 .1] acc 0 gap .1 | [.2] gap .2 | [.5 .4(gold)] conf .45 acc .5 gap .05 |
    # [.7(gold)] gap .3 | empty bin gap 0 -> primary .65/5 = .13; weighted .8/6
    cal = calibration_error(T5_PROBS, T5_GOLD, bins=5)
    assert cal is not None
    assert cal.ce == pytest.approx(0.13)
    assert cal.weighted_ce == pytest.approx(0.8 / 6)
    assert (cal.samples, cal.questions) == (6, 2)
    assert [b.n for b in cal.bins] == [2, 1, 2, 1, 0]


def test_t5_bins_setting_changes_the_value() -> None:
    # 10 bins: gaps .1 (two .1s), .2, .6 (.4 gold), .5, .3 -> 1.7/10; weighted 1.8/6
    cal = calibration_error(T5_PROBS, T5_GOLD, bins=10)
    assert cal is not None
    assert cal.ce == pytest.approx(0.17)
    assert cal.weighted_ce == pytest.approx(0.3)


def test_t5_edge_cases() -> None:
    cal = calibration_error([{"A": 1.0, "B": 0.0}], ["A"], bins=5)
    assert cal is not None and cal.ce == 0.0 and cal.bins[4].n == 1  # p = 1.0 in the last bin
    cal = calibration_error([None, T5_PROBS[0]], ["B", "A"], bins=5)  # an errored question
    assert cal is not None and cal.questions == 1 and cal.samples == 3
    assert calibration_error([None], ["A"]) is None  # nothing scored (the reference divides by 0)


def test_t5_option_probs_from_a_verbalised_answer() -> None:
    assert chosen_option_probs(5, 1, 0.6) == pytest.approx([0.1, 0.6, 0.1, 0.1, 0.1])
    assert chosen_option_probs(5, None, None) == pytest.approx([0.2] * 5)


def test_brier() -> None:
    assert brier_score([[1.0, 0.0], [0.5, 0.5]], [0, 1]) == pytest.approx((0 + 0.5) / 2)


# ---------------------------------------------------------------- T7 (reference: video_miou.py)

G = (0.0, 0.0, 0.2, 0.2)  # area .04
G_SHIFT = (0.1, 0.0, 0.3, 0.2)  # overlaps G by .02: IoU 1/3
FAR = (0.5, 0.5, 0.7, 0.7)


def test_t7_holistic_sums_before_dividing() -> None:
    assert iou((0, 0, 2, 2), (1, 1, 3, 3)) == pytest.approx(1 / 7)
    # frame 0: .04/.04; frame 1: .02/.06 -> holistic .06/.10 = .6 (per-frame mean would be 2/3)
    m = video_miou({1: {0: G, 1: G}}, {7: {0: G, 1: G_SHIFT}})
    assert m is not None
    assert m.miou == pytest.approx(0.6)
    assert m.frame_miou == pytest.approx(2 / 3)
    assert m.matched_tracks == 1


def test_t7_false_positive_and_missed_tracks_are_penalised() -> None:
    gold, pred = {1: {0: G, 1: G}}, {7: {0: G, 1: G_SHIFT}}
    fp = video_miou(gold, {**pred, 9: {0: FAR, 1: FAR}})  # +.04 union per frame
    missed = video_miou({**gold, 2: {0: FAR, 1: FAR}}, pred)
    assert fp is not None and fp.miou == pytest.approx(0.06 / 0.18)
    assert missed is not None and missed.miou == pytest.approx(0.06 / 0.18)


def test_t7_matching_threshold_and_failed_videos() -> None:
    assert video_miou({1: {0: G}}, {7: {0: G_SHIFT}}) is None  # IoU 1/3 < .5: nothing matched
    assert mean_video_miou([0.6, None, 0.3]) == {"video_miou": pytest.approx(0.45),
                                                 "evaluated": 2, "failed": 1}  # fmt: skip


def test_t7_greedy_ties_go_to_the_later_track() -> None:
    # two predictions equal to the gold box on frame 0; the reference sorts (iou, i, j)
    # descending, so the later one (drifting on frame 1) is matched and the other is a false
    # positive: (.04 + .02) / (.04 + .04 + .06 + .04) = 1/3 (the earlier one would give .5)
    m = video_miou({1: {0: G, 1: G}}, {3: {0: G, 1: G}, 4: {0: G, 1: G_SHIFT}})
    assert m is not None and m.miou == pytest.approx(1 / 3)


def test_t7_frame0_tracks_and_frame_limit() -> None:
    # a gold track born on frame 1 is dropped (frame0_only), so the prediction that follows it
    # is an unmatched false positive: .04 / (.04 + .04)
    m = video_miou({1: {0: G}, 2: {1: FAR}}, {7: {0: G}, 8: {1: FAR}})
    assert m is not None and m.miou == pytest.approx(0.5)
    # frames >= max_frames are not scored: the drifted frame 81 changes nothing
    m = video_miou({1: {0: G, 81: G}}, {7: {0: G, 81: G_SHIFT}})
    assert m is not None and m.miou == pytest.approx(1.0) and m.frames == 1


def test_rubric_with_penalty() -> None:
    items = [
        RubricItem(name="a", weight=5),
        RubricItem(name="b", weight=3),
        RubricItem(name="c", weight=1),
        RubricItem(name="p", weight=5, is_penalty=True),
    ]
    assert rubric_score(items, [True, True, False, False]) == pytest.approx(8 / 9)
    assert rubric_score(items, [True, False, True, True]) == pytest.approx(1 / 9)
    assert rubric_score(items, [False, False, False, True]) == 0.0
