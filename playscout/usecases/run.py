"""Start an eval run: what `playscout eval run` and `POST /v1/runs` (the server's run service)
do before the first question. The request says what it wants (a field left None: the
settings choose, here and in usecases/defaults.py); `prepare_run` opens the run's one Runtime,
makes the checks, and hands back the spec to run and the warnings. A run either side refuses
is refused with the same line, naming every reason (exit 2 on the CLI, a 400 over HTTP), and
nothing is written."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Self

from pydantic import Field, field_validator, model_validator

from playscout.config import Mode, Policy, Settings
from playscout.config.presets import DEFAULT_EVAL_PRESET, load_preset
from playscout.corpus import Corpus
from playscout.corpus.sports import sport as sport_record
from playscout.corpus.sports import sport_names
from playscout.eval.errors import RunError
from playscout.eval.running.preflight import run_needs
from playscout.eval.running.runner import check_strict, eval_runtime
from playscout.eval.running.spec import RunSpec, default_run_dir, model_label
from playscout.eval.tasks.registry import get, open_task, task_names
from playscout.eval.tasks.task import Task
from playscout.runtime import Runtime
from playscout.runtime.preflight import check_run, require
from playscout.search.backend_api import SearchBackend
from playscout.usecases.defaults import mode_of, policy_of
from playscout.usecases.probe import probe_models
from playscout.usecases.request import Request


class RunRequest(Request):
    """A batch run as a client asks for it (`POST /v1/runs`'s body); the base of `LocalRun`."""

    task: str = Field("t9", description="Task name from the eval registry.")
    sport: list[str] | str | None = Field(
        None,
        description="Sports: a JSON list or a comma-separated string, as `eval run --sport` "
        "takes [default: the server's, `serve --sport`, else every sport in the index].",
    )
    mode: Mode | None = Field(None, description="[default: the server's, `serve --mode`]")
    policy: Policy | None = Field(None, description="[default: the server's, `serve --policy`]")
    limit: int | None = Field(None, ge=1, description="Questions per sport at most [all].")
    strict: bool = Field(
        False,
        description="Refuse a run that could not be comparable to SVI-Bench Table 15 (its "
        "preset, policy, model roles, index embedders, judge, corpus), naming every reason.",
    )

    @field_validator("task")
    @classmethod
    def _known_task(cls, task: str) -> str:
        """Refused at the door, not accepted and then failed in the background: a client
        cannot hand the server a data file, so the task must make its own questions."""
        if task not in (names := task_names(generated=True)):
            what = "a task over published data only" if task in task_names() else "unknown task"
            raise ValueError(f"{what} {task!r}; known: {', '.join(names)}")
        return task

    @field_validator("sport")
    @classmethod
    def _known_sports(cls, value: list[str] | str | None) -> list[str] | None:
        """Always a list afterwards; each name a known sport."""
        return [sport_record(n).name for n in names] if (names := _names(value)) else None

    @property
    def sports(self) -> tuple[str, ...]:
        return tuple(self.sport or ())  # a list after validation


class LocalRun(RunRequest):
    """A run started on this machine (`eval run`, Python): what a client may ask for, plus
    what only this machine's user chooses: its files (published data, their videos, the run
    folder), the preset (a name or a file), the parallelism and retries."""

    data: Path | None = Field(None, description="A published data file or folder of the task.")
    media: Path | None = Field(None, description="Where the data's videos are [its folder].")
    out_dir: Path | None = Field(
        None, description="Run folder, resumed if it exists [a new one in eval.runs_dir]."
    )
    preset: str | None = Field(None, description="Protocol preset [settings.preset, paper].")
    concurrency: int | None = Field(None, ge=1, description="In flight [eval.concurrency].")
    retry_failed: bool = Field(False, description="Re-run questions whose status is error.")
    rerun_changed: bool = Field(
        False, description="Resume although questions changed: re-run them, mark the run mixed."
    )

    @field_validator("task")
    @classmethod
    def _known_task(cls, task: str) -> str:
        """Any declared task: one over published data only needs `data` (said when prepared)."""
        get(task)  # an unknown task is one line naming the known ones
        return task

    @field_validator("sport")
    @classmethod
    def _known_sports(cls, value: list[str] | str | None) -> list[str] | None:
        return _names(value)  # checked below: a data file names its own sports

    @model_validator(mode="after")
    def _sports_of_the_corpus(self) -> Self:
        """Without data, each sport is a known one; a data file's sports (gameplay, cricket)
        are its own, and its loader says which it lacks."""
        if self.data is None:
            self.sport = [sport_record(n).name for n in self.sports] or None
        return self


def _names(value: list[str] | str | None) -> list[str] | None:
    """`a, b` or [a, b, a] -> [a, b]; nothing named -> None."""
    names = (value.split(",") if isinstance(value, str) else value) or []
    return list(dict.fromkeys(n.strip() for n in names if n.strip())) or None


@dataclass(frozen=True)
class PreparedRun:
    """A run that passed its checks: its spec (every choice made), its one Runtime, the
    settings it runs under, and what would not stop it but should be said."""

    spec: RunSpec
    runtime: Runtime
    settings: Settings
    warnings: list[str] = field(default_factory=list)


def prepare_run(
    request: RunRequest,
    settings: Settings,
    *,
    backend: SearchBackend | None = None,
    probe: bool = True,
) -> PreparedRun:
    """The run `request` asks for, checked; raises PreflightError, RunError or InvalidRequest
    when it cannot start. `probe`: ask each model server the run calls whether it answers
    first (the CLI; a server's /readyz probes its own); `backend`: an index already open."""
    req = request if isinstance(request, LocalRun) else LocalRun.of(**request.model_dump())
    if req.data is not None and not req.data.exists():
        raise RunError(f"{req.data}: data file not found")
    if req.media is not None and not req.media.is_dir():
        raise RunError(f"{req.media}: media folder not found")
    if req.preset is not None:
        settings = settings.model_copy(update={"preset": req.preset})
    preset = load_preset(settings.preset or DEFAULT_EVAL_PRESET)
    task, needs_index, data_sports = _task(req, settings)
    mode, policy = mode_of(req.mode, settings.serving), policy_of(req.policy, settings.serving)
    spec = RunSpec(
        task=req.task,
        data=req.data,
        media=req.media,
        mode=mode,
        sports=(),
        policy=policy,
        limit=req.limit,
        concurrency=req.concurrency or settings.eval.concurrency,
        out_dir=req.out_dir or new_run_dir(settings, req.task, mode, policy),
        retry_failed=req.retry_failed,
        rerun_changed=req.rerun_changed,
    )
    warnings = probe_models(settings, run_needs(task, spec, preset)) if probe else []
    runtime = eval_runtime(spec, settings, needs_index=needs_index, backend=backend)
    sports, notes = _sports(req, settings, runtime, task)
    spec = spec.model_copy(update={"sports": sports})
    needs = run_needs(task, spec, runtime.preset)
    if needs_index and not needs.sports:  # published data without sports named: every one in it
        needs = replace(needs, sports=data_sports)
    warnings += [w.detail for w in require(check_run(runtime, needs))]
    if req.strict:  # the one place a run is held to the stamp (eval/running/ran.py decides)
        check_strict(spec, runtime, task)
    return PreparedRun(spec, runtime, settings, notes + warnings)


def new_run_dir(settings: Settings, task: str, mode: Mode, policy: Policy) -> Path:
    """A new folder in `eval.runs_dir` named by time, task, mode and model."""
    return default_run_dir(settings.eval.runs_dir, task, mode, model_label(policy, settings))


def _task(req: LocalRun, settings: Settings) -> tuple[Task, bool, tuple[str, ...]]:
    """The task object, whether it searches the index, and (with data) the data's sports. A
    task over published data only, asked without data, is one line saying --data."""
    task = open_task(req.task, req.data)
    sports = tuple(task.data.sports) if task.data is not None else ()
    return task, task.index_needed(settings), sports


def _sports(
    req: LocalRun, settings: Settings, runtime: Runtime, task: Task
) -> tuple[tuple[str, ...], list[str]]:
    """The sports the run asks, and what was said about choosing them: the request's, else
    (without data) `serving.sport`, else every sport the corpus has that the index holds,
    less those the task has no questions for. With data and no sports named: every sport in
    the data (an empty tuple)."""
    if req.sports:
        return req.sports, []
    if req.data is not None:
        return (), []
    if settings.serving.sport:
        return (settings.serving.sport,), []
    notes: list[str] = []
    every = _every_sport(runtime, notes)
    empty = getattr(task, "empty_sports", None)  # a task over the corpus' question files
    if runtime.corpus is not None and callable(empty):
        none = empty(runtime.corpus, every)
        if none and len(none) < len(every):  # none at all: the task's own error says so
            notes.append(_skipped(runtime.corpus, none))
            every = tuple(s for s in every if s not in none)
    return every, notes


def _every_sport(runtime: Runtime, notes: list[str]) -> tuple[str, ...]:
    """Every sport the corpus has, narrowed to those the index holds (an index built with
    --sports covers part of its corpus; said in `notes`); none in common keeps them all, so
    the preflight names the sport the index lacks. No corpus: the index's; neither: all."""
    corpus = runtime.corpus.sports() if runtime.corpus is not None else []
    held = runtime.backend.sports() if runtime.backend is not None else []
    if corpus and held:
        kept = [s for s in corpus if s in held]
        if kept and kept != corpus:
            notes.append(
                f"the index holds {', '.join(kept)} of the corpus' {', '.join(corpus)}: "
                "running those (--sport chooses)"
            )
            return tuple(kept)
    return tuple(corpus or held or sport_names())


def _skipped(corpus: Corpus, sports: Sequence[str]) -> str:
    them = "it" if len(sports) == 1 else "them"
    return (
        f"{corpus.root} has no questions for {', '.join(sports)}: skipping {them} "
        "(--sport chooses; `playscout corpus questions` writes questions)"
    )
