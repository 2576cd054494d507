"""Evaluation: batch runs of benchmark tasks through the agent (resumable), pluggable judges,
reports and plots. Five layers, top first (docs/architecture.md, "Inside eval"): `results`
(reading runs), `running` (a run), `tasks` (one module per task), `judging` (scoring an
answer), `storage` (the run directory). Public entry points are re-exported here."""

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
