"""Pure metric functions: plain lists in, numbers out, each checked against hand-computed values
in tests/eval/test_metrics.py."""

from playscout.eval.metrics.boxes import Box, Track, iou, match_tracks, track_miou
from playscout.eval.metrics.calibration import brier_score, calibration_error
from playscout.eval.metrics.classification import (
    accuracy,
    cohen_kappa,
    grouped_accuracy,
    mean,
    mean_abs_error,
)
from playscout.eval.metrics.retrieval import median_rank, recall_at_k
from playscout.eval.metrics.rubric import RubricItem, judged_rubric_score, rubric_score

__all__ = [
    "Box",
    "RubricItem",
    "Track",
    "accuracy",
    "brier_score",
    "calibration_error",
    "cohen_kappa",
    "grouped_accuracy",
    "iou",
    "judged_rubric_score",
    "match_tracks",
    "mean",
    "mean_abs_error",
    "median_rank",
    "recall_at_k",
    "rubric_score",
    "track_miou",
]
