"""Pure metric functions: plain lists in, numbers out, each checked against hand-computed values
in tests/eval/judging/test_metrics.py. T3, T5 and T7 follow the SVI-Bench reference's formulas
and edge cases (docs/metrics.md)."""

from playscout.eval.judging.metrics.boxes import (
    Box,
    Track,
    VideoMiou,
    greedy_match,
    iou,
    mean_video_miou,
    video_miou,
)
from playscout.eval.judging.metrics.calibration import (
    Calibration,
    brier_score,
    calibration_error,
    chosen_option_probs,
)
from playscout.eval.judging.metrics.classification import (
    accuracy,
    cohen_kappa,
    grouped_accuracy,
    mean,
    mean_abs_error,
)
from playscout.eval.judging.metrics.retrieval import retrieval_metrics, zero_based_rank
from playscout.eval.judging.metrics.rubric import RubricItem, judged_rubric_score, rubric_score

__all__ = [
    "Box",
    "Calibration",
    "RubricItem",
    "Track",
    "VideoMiou",
    "accuracy",
    "brier_score",
    "calibration_error",
    "chosen_option_probs",
    "cohen_kappa",
    "greedy_match",
    "grouped_accuracy",
    "iou",
    "judged_rubric_score",
    "mean",
    "mean_abs_error",
    "mean_video_miou",
    "retrieval_metrics",
    "rubric_score",
    "video_miou",
    "zero_based_rank",
]
