"""Every metric against hand-computed values."""

from __future__ import annotations

import pytest

from playscout.eval.metrics import (
    RubricItem,
    accuracy,
    brier_score,
    calibration_error,
    cohen_kappa,
    grouped_accuracy,
    iou,
    mean_abs_error,
    median_rank,
    recall_at_k,
    rubric_score,
    track_miou,
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


def test_recall_and_median_rank() -> None:
    ranks = [1, 3, 60, None]
    r = recall_at_k(ranks, (1, 5, 100, 500))
    assert r == {1: 0.25, 5: 0.5, 100: 0.75, 500: 0.75}
    # missing rank counts as pool+1 = 11: sorted 1, 3, 11, 60 -> median 7
    assert median_rank(ranks, 10) == 7.0


def test_calibration_error_weighted_bins() -> None:
    # bin [0.8,1.0]: confs 0.9, 0.9 acc 0.5 -> |0.5-0.9| = 0.4 weight 2/4
    # bin [0.2,0.4): confs 0.3, 0.3 acc 0.0 -> 0.3 weight 2/4 -> CE = 0.35
    ce = calibration_error([0.9, 0.9, 0.3, 0.3], [True, False, False, False], bins=5)
    assert ce == pytest.approx(0.35)
    assert calibration_error([1.0], [True]) == pytest.approx(0.0)


def test_brier() -> None:
    assert brier_score([[1.0, 0.0], [0.5, 0.5]], [0, 1]) == pytest.approx((0 + 0.5) / 2)


def test_iou_and_track_miou() -> None:
    assert iou((0, 0, 2, 2), (1, 1, 3, 3)) == pytest.approx(1 / 7)
    gold = {"a": {0: (0.0, 0.0, 0.2, 0.2), 1: (0.1, 0.0, 0.3, 0.2)}, "b": {0: (0.5, 0.5, 0.7, 0.7)}}
    pred = {"x": {0: (0.5, 0.5, 0.7, 0.7)}, "y": {0: (0.0, 0.0, 0.2, 0.2), 1: (0.2, 0.0, 0.4, 0.2)}}
    # a<->y: frame0 1.0, frame1 iou((.1,0,.3,.2),(.2,0,.4,.2)) = 0.02/0.06 = 1/3 -> 2/3; b<->x: 1.0
    assert track_miou(gold, pred) == pytest.approx((2 / 3 + 1.0) / 2)
    assert track_miou(gold, {}) == 0.0


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
