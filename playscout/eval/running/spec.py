"""What one batch run is: the task, how to answer it, over what, with how much parallelism,
and where it lives, every choice made: the run use case (`usecases.prepare_run`) builds it for
the CLI and the HTTP run service alike, so both agree on the options and their defaults;
`run_eval(spec, settings)` takes it whole.

The options that must match for a run directory to be resumed (task, mode, policy, sports)
are recorded in its run.json; the rest (concurrency, retry_failed, rerun_changed) may change between
attempts.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from playscout.config import DEFAULT_MODE, DEFAULT_POLICY, Mode, Policy, Settings


class RunSpec(BaseModel):
    """Immutable: one spec is one run; `model_copy(update=...)` makes the next attempt's."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task: str = Field("t9", description="Task name from the eval registry.")
    out_dir: Path = Field(description="Run directory; resumed if it exists.")
    mode: Mode = DEFAULT_MODE
    sports: tuple[str, ...] = Field(
        description="Sports to run; empty with `data`: every sport in it. Chosen by the run "
        "use case (usecases/run.py) when a request names none."
    )
    policy: Policy = DEFAULT_POLICY
    limit: int | None = Field(None, description="Questions per sport at most (None: all).")
    concurrency: int = Field(8, ge=1, description="Questions in flight.")
    retry_failed: bool = Field(False, description="Re-run questions whose status is error.")
    rerun_changed: bool = Field(
        False,
        description="Resume even though questions changed since they ran: re-run the changed "
        "ones, drop the removed ones, and mark the run mixed (else the resume is refused).",
    )
    data: Path | None = Field(
        None, description="A published data file (or folder) of the task; None: the corpus'."
    )
    media: Path | None = Field(
        None, description="Where the data's videos are (default: the data file's folder)."
    )


def _slug(text: str, limit: int = 48) -> str:
    """A model name as a directory-name part: `Qwen/Qwen3-8B` -> `Qwen-Qwen3-8B`."""
    slug = re.sub(r"[^A-Za-z0-9_]+", "-", text).strip("-_")
    return slug[:limit].rstrip("-_") or "model"


def default_run_dir(
    runs_dir: Path, task: str, mode: str, model: str, when: float | None = None
) -> Path:
    """`runs_dir/20260131T142501-t9-default-Qwen-Qwen3-8B`: when, what and with which model,
    readable in a listing and sortable by time. The name is a valid run id (the API lists it);
    a second run in the same second gets `-2`, `-3`, ..."""
    stamp = time.strftime("%Y%m%dT%H%M%S", time.localtime(when))
    base = f"{stamp}-{_slug(task, 24)}-{_slug(mode, 16)}-{_slug(model)}"
    path, n = Path(runs_dir) / base, 1
    while path.exists():
        n += 1
        path = Path(runs_dir) / f"{base}-{n}"
    return path


def model_label(policy: Policy, settings: Settings) -> str:
    """What answered the questions, for a run's name: the agent model, or the baseline."""
    if policy == "workflow":
        return "workflow"
    return settings.agent.llm.model or "no-model"
