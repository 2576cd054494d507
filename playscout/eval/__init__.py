"""Evaluation: batch runs of benchmark tasks through the agent (resumable), pluggable judges,
reports and plots. Public entry points are re-exported here."""

from playscout.config import EvalSettings
from playscout.eval.runner import RunError, RunSummary, run_eval, run_eval_async

__all__ = ["EvalSettings", "RunError", "RunSummary", "run_eval", "run_eval_async"]
