"""Evaluation: batch runs of benchmark tasks through the agent (resumable), pluggable judges,
reports and plots. Public entry points are re-exported here."""

from playscout.config import EvalSettings
from playscout.eval.errors import RunError
from playscout.eval.records import Outcome, ResultRow
from playscout.eval.runner import RunSummary, run_eval, run_eval_async
from playscout.eval.spec import RunSpec

__all__ = [
    "EvalSettings",
    "Outcome",
    "ResultRow",
    "RunError",
    "RunSpec",
    "RunSummary",
    "run_eval",
    "run_eval_async",
]
