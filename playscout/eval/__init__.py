"""Evaluation: batch runs of benchmark tasks through the agent (resumable), pluggable judges,
reports and plots. Public entry points are re-exported here."""

from playscout.config import EvalSettings
from playscout.eval.errors import RunError
from playscout.eval.running.runner import RunSummary, run_eval, run_eval_async
from playscout.eval.running.spec import RunSpec
from playscout.eval.storage.records import Outcome, ResultRow

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
