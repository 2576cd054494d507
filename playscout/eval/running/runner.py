"""The batch runner: every instance of a task through the agent (or a direct tool call),
concurrently under a semaphore, resumable after any crash.

Fixes of the reference (§5.1, defects 13 and 23): one process with asyncio concurrency instead
of a SLURM array; results keyed by question id in one append-only, fsync'd JSONL, so a killed
run resumes with every question exactly once, whatever the concurrency; errors are recorded
(status "error") and re-run with retry_failed, or by any resume when the disk or the model
server caused them (`error_kind`); the fallback phrase is never an answer; one
run directory holds everything (run.json, results, trajectories, judgements, report).
"""

from __future__ import annotations

import asyncio
import contextlib
import platform
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from pydantic import BaseModel, Field

from playscout.agent.ids import valid_id
from playscout.clients.chat import ChatClient
from playscout.config import Mode, Settings, package_versions, redact_urls
from playscout.config.presets import DEFAULT_EVAL_PRESET, DEFAULT_PRODUCT_PRESET
from playscout.eval.errors import MissingInput, RunError, failure_kind, failure_kind_of_text
from playscout.eval.running.cache import CachingChatClient, ResponseCache
from playscout.eval.running.fingerprint import QuestionChanges, fingerprint, question_changes
from playscout.eval.running.ran import merge_resume, planned_stamp, require_comparable, what_ran
from playscout.eval.running.spec import RunSpec
from playscout.eval.running.stamp import Stamp, run_stamp, stamp
from playscout.eval.running.tracing import traced_question
from playscout.eval.storage.records import Outcome, QuestionFields, ResultRow
from playscout.eval.storage.status import StatusTracker, run_lock
from playscout.eval.storage.store import RUN_JSON, TRAJECTORIES, results_store, write_json_atomic
from playscout.eval.tasks.registry import open_task
from playscout.eval.tasks.task import Instance, Task, TaskEnv
from playscout.search.backend_api import SearchBackend
from playscout.storage import OutputLock
from playscout.tools.tool import ModelSet

__all__ = [
    "RunSummary",
    "build_env",
    "check_strict",
    "eval_runtime",
    "planned_stamp",
    "run_eval",
    "run_eval_async",
]

if TYPE_CHECKING:
    from playscout.runtime import Runtime

Progress = Callable[[int, int], None]
OnResult = Callable[[ResultRow], None]
CANCELLED = (
    "cancelled before it finished; questions without a result are run when the run is resumed "
    "(`playscout eval run --out <run dir>` with the same options)"
)
EVAL_PACKAGES = (
    "playscout",
    "langgraph",
    "langchain-core",
    "pydantic",
    "httpx",
    "numpy",
    "matplotlib",
)


class RunSummary(BaseModel):
    run_dir: str
    task: str
    mode: Mode
    total: int
    skipped: int
    ran: int
    statuses: dict[str, int] = Field(default_factory=dict)
    wall_s: float = 0.0
    cache_hits: int = 0
    cache_misses: int = 0


def versions() -> dict[str, str]:
    """The interpreter, the platform and EVAL_PACKAGES, for run.json."""
    out = {"python": sys.version.split()[0], "platform": platform.platform()}
    return out | package_versions(EVAL_PACKAGES)


def _wrap(client: Any, cache: ResponseCache | None) -> Any:
    return CachingChatClient(client, cache) if client is not None and cache is not None else client


def eval_runtime(
    spec: RunSpec,
    settings: Settings,
    *,
    needs_index: bool,
    client: ChatClient | None = None,
    backend: SearchBackend | None = None,
) -> Runtime:
    """The run's one Runtime: the index (opened here unless given), the agent's model
    (configured, unless given; only the llm policy needs one), the QA models and the tracer,
    under the eval preset unless settings name one. `eval run` builds it before the run, for
    its preflight, and hands it to run_eval."""
    from playscout.runtime import Runtime

    return Runtime.from_settings(
        settings,
        backend=backend,
        llm=client,
        need_index=needs_index,
        need_llm=spec.policy == "llm",
        default_preset=DEFAULT_EVAL_PRESET,
        warm=True,  # a run searches many times: queries embedded where the vectors were made
    )


def build_env(
    spec: RunSpec,
    runtime: Runtime,
    cache: ResponseCache | None = None,
) -> TaskEnv:
    """What every route of the run shares: a view of the run's one Runtime, its model clients
    behind the response cache when there is one, and the judge's."""
    from playscout.agent.context import default_tokenizer
    from playscout.runtime import chat_client

    models, settings = runtime.models, runtime.settings
    return TaskEnv(
        runtime=runtime,
        mode=spec.mode,
        policy=spec.policy,
        client=_wrap(runtime.llm, cache),
        models=ModelSet(  # every role's client behind the cache, declared ones included
            document_llm=_wrap(models.document_llm, cache),
            vlm=_wrap(models.vlm, cache),
            caption_llm=_wrap(models.caption_llm, cache),
            more={role: _wrap(c, cache) for role, c in models.more.items()},
        ),
        tokenizer=default_tokenizer(),
        media=spec.media,
        judge=_wrap(chat_client(settings.eval.judge), cache)
        if settings.eval.judge.configured
        else None,
    )


def run_manifest(
    spec: RunSpec, settings: Settings, env: TaskEnv, instances: Sequence[Instance] = ()
) -> dict[str, Any]:
    """run.json: the options a resume must match, the models and frame policy that produced
    the answers, every setting and package version, and what ran (eval/running/ran.py) with the
    stamp it earns."""
    qa, eval_settings = settings.qa, settings.eval
    manifest: dict[str, Any] = {
        "task": spec.task,
        "mode": spec.mode,
        "sports": list(spec.sports),
        "policy": spec.policy,
        "preset": env.runtime.preset_record(),
        "limit": spec.limit,
        "data": str(spec.data) if spec.data else None,
        "media": str(spec.media) if spec.media else None,
        "created_at": datetime.now(UTC).isoformat(),
        "models": {
            "agent": getattr(env.client, "model", None) if spec.policy == "llm" else None,
            "document_llm": qa.document_llm.model or None,
            "vlm": qa.vlm.model or None,
            "caption_llm": qa.caption_llm.model or None,
            "judge": eval_settings.judge.model or None,
        },
        "frame_policy": {
            "frames_per_clip": qa.frames_per_clip,
            "frame_long_side": qa.frame_long_side,
            "jpeg_quality": qa.jpeg_quality,
            "frames_per_game": eval_settings.frames_per_game,  # T4's full-game videos
        },
        "best_of_k": eval_settings.best_of_k,  # T4's candidates per question
        "settings": settings.redacted(),
        "eval_settings": redact_urls(eval_settings.model_dump(mode="json")),
        "versions": versions(),
        "resumes": [],
    }
    manifest["ran"] = what_ran(spec, env, instances)
    manifest["stamp"] = stamp(manifest["preset"], manifest["ran"]).record()
    return manifest


def check_strict(spec: RunSpec, runtime: Runtime, task: Task) -> Stamp:
    """`eval run --strict`: the questions the run would ask are loaded (nothing is asked) and
    a run that could not be comparable to Table 15 is refused in one line, before it starts
    (eval/running/ran.require_comparable)."""
    instances = task.load(build_env(spec, runtime), list(spec.sports), spec.limit)
    return require_comparable(spec, runtime, instances)


_SAME = ("task", "mode", "policy", "sports", "preset", "data")


def _open_run(
    out_dir: Path, manifest: dict[str, Any], changes: QuestionChanges, rerun_changed: bool
) -> None:
    """A new run's run.json, or a resume's checks: the same options, and the same questions
    unless `rerun_changed` (then the run is marked mixed)."""
    path = out_dir / RUN_JSON
    if path.is_file():
        old = orjson.loads(path.read_bytes())
        for key in _SAME:
            before, now = old.get(key), manifest[key]
            if key == "preset":  # the name decides; runs from before presets were extended
                before = (before or {"name": DEFAULT_PRODUCT_PRESET})["name"]
                now = now["name"]
            if before != now:
                raise RunError(
                    f"{out_dir} holds a run with {key}={before!r}, not {now!r}; "
                    "use another --out or the same options to resume"
                )
        if changes and not rerun_changed:
            raise RunError(
                f"{out_dir}: questions changed since this run ran them ({changes.line()}); "
                "--rerun-changed runs the changed ones again and drops the removed ones (the "
                "run is then marked mixed), or use another --out"
            )
        old.setdefault("resumes", []).append(datetime.now(UTC).isoformat())
        merge_resume(old, manifest)
        if changes:  # a mixed run: the stamp says so (eval/running/stamp.mixed_questions)
            ran = old.setdefault("ran", {})
            ran.setdefault("mixed_questions", []).append(changes.line(limit=50))
        old["stamp"] = run_stamp(old).record()
        write_json_atomic(path, old)
    else:
        out_dir.mkdir(parents=True, exist_ok=True)
        write_json_atomic(path, manifest)


def _run_again(prev: ResultRow, inst: Instance, retry_failed: bool) -> bool:
    """Whether a resume runs a question with a row again: every error with `retry_failed`; an
    error whose cause was the disk or the model server (it says nothing about the question)
    always; a `missing_input` whose input is there now."""
    if prev.status == "error":
        return retry_failed or (prev.error_kind or failure_kind_of_text(prev.error)) is not None
    return prev.status == "missing_input" and not inst.missing


async def _one(inst: Instance, task: Task, env: TaskEnv, out_dir: Path, attempt: int) -> ResultRow:
    traj = out_dir / TRAJECTORIES / f"{inst.id}.jsonl"
    traj.unlink(missing_ok=True)  # a killed attempt's partial trajectory: start it afresh
    t0 = time.perf_counter()
    question = QuestionFields(
        qid=inst.id,
        sport=inst.sport,
        question=inst.prompt,
        gold=inst.gold,
        meta=inst.meta,
        attempt=attempt,
        trajectory=str(traj.relative_to(out_dir)),
        judgeable=task.judged,
        fingerprint=fingerprint(inst.prompt, inst.gold, inst.meta),
    )
    if inst.missing:  # not asked at all: nothing to route, nothing to judge, no trajectory
        unasked = question.model_copy(update={"judgeable": False, "trajectory": ""})
        return ResultRow.of(unasked, Outcome(status="missing_input", error=inst.missing))
    try:
        out = await task.route(inst, env, traj)
    except MissingInput as e:
        question.judgeable = False
        out = Outcome(
            status="missing_input", error=str(e), wall_s=round(time.perf_counter() - t0, 4)
        )
    except Exception as e:  # one broken question must not end the run
        out = Outcome(
            status="error",
            error=f"{type(e).__name__}: {e}",
            traceback=traceback.format_exc(limit=6),
            wall_s=round(time.perf_counter() - t0, 4),
        )
        if kind := failure_kind(e):  # the disk or the model server: run it again on resume
            out = out.updated(error_kind=kind)
    return ResultRow.of(question, out)


async def run_eval_async(
    spec: RunSpec,
    settings: Settings | None = None,
    *,
    client: ChatClient | None = None,
    backend: SearchBackend | None = None,
    runtime: Runtime | None = None,
    progress: Progress | None = None,
    lock: OutputLock | None = None,
    on_result: OnResult | None = None,
) -> RunSummary:
    """Runs `spec` with `settings` (its `eval` section included); `client` and `backend`
    replace the configured agent model and index (tests, benchmarks, a server that has them
    open already); `runtime` is the run's one Runtime when the caller built it already
    (`eval_runtime`: `eval run` does, for its preflight), else it is built here;
    `progress(done, total)` is called after each question, `on_result(row)` with each
    question's stored row (the server's metrics).

    The run folder is locked for the whole run (`lock`, when the caller took it already, as
    the run service does at submit): a second `eval run --out` on the same folder, resuming
    it from another shell or beside a server that runs it, is refused with one line naming
    the holder instead of running the same questions twice."""
    settings = settings or Settings.load()
    if runtime is not None and (client is not None or backend is not None):
        raise ValueError("run_eval: pass client and backend to eval_runtime, not beside it")
    held = contextlib.nullcontext() if lock is not None else run_lock(Path(spec.out_dir))
    with held:  # a caller's lock stays the caller's to release
        cache = ResponseCache(settings.eval.cache_db) if settings.eval.cache_db else None
        try:
            return await _run(spec, settings, client, backend, runtime, progress, cache, on_result)
        finally:  # however the run ends (a failed start included), the cache closes
            if cache is not None:
                cache.close()


async def _run(
    spec: RunSpec,
    settings: Settings,
    client: ChatClient | None,
    backend: SearchBackend | None,
    runtime: Runtime | None,
    progress: Progress | None,
    cache: ResponseCache | None,
    on_result: OnResult | None = None,
) -> RunSummary:
    out_dir = Path(spec.out_dir)
    t = open_task(
        spec.task, spec.data
    )  # a data file first: a wrong one fails before anything opens
    if runtime is None:
        needs_index = t.index_needed(settings)
        runtime = eval_runtime(
            spec, settings, needs_index=needs_index, client=client, backend=backend
        )
    env = build_env(spec, runtime, cache)
    t.check(env)
    instances = t.load(env, list(spec.sports), spec.limit)
    manifest = run_manifest(spec, env.settings, env, instances)  # as run: the preset applied
    if t.data is not None:
        manifest["format"] = t.data.format.name
    store = results_store(out_dir)
    previous = store.latest()  # nothing for a new run
    every = (lambda: {i.id for i in t.load(env, list(spec.sports), None)}) if spec.limit else None
    changes = question_changes(previous, instances, every)
    _open_run(out_dir, manifest, changes, spec.rerun_changed)
    if changes.removed:
        store.remove(changes.removed, "the task no longer has this question")
    todo: list[tuple[Instance, int]] = []
    for inst in instances:
        prev = previous.get(inst.id)
        if prev is None:
            todo.append((inst, 1))
        elif inst.id in changes.changed or _run_again(prev, inst, spec.retry_failed):
            todo.append((inst, prev.attempt + 1))
    sem = asyncio.Semaphore(spec.concurrency)
    statuses: dict[str, int] = {}
    done = 0
    t0 = time.perf_counter()
    skipped = len(instances) - len(todo)
    # A directory whose name is not an id is not listed by the API, so it gets no status.
    tracker = (
        StatusTracker(out_dir, total=len(instances), done=skipped)
        if valid_id(out_dir.name)
        else None
    )

    async def worker(inst: Instance, attempt: int) -> None:
        nonlocal done
        async with sem:
            row = await traced_question(
                env.runtime.tracer,
                env.settings.telemetry,
                out_dir.name,
                t.name,
                inst.id,
                inst.prompt,
                lambda: _one(inst, t, env, out_dir, attempt),
            )
        store.append(row)
        if on_result:
            on_result(row)
        statuses[row.status] = statuses.get(row.status, 0) + 1
        done += 1
        if tracker:
            tracker.progress(skipped + done)
        if progress:
            progress(done, len(todo))

    if progress:  # the total is known before the first question ends
        progress(0, len(todo))
    try:
        await asyncio.gather(*(worker(i, a) for i, a in todo))
    except asyncio.CancelledError:
        if tracker:
            tracker.finish("cancelled", CANCELLED)
        raise
    except Exception as e:
        if tracker:
            tracker.finish("failed", f"{type(e).__name__}: {e}")
        raise
    summary = RunSummary(
        run_dir=str(out_dir),
        task=spec.task,
        mode=spec.mode,
        total=len(instances),
        skipped=skipped,
        ran=len(todo),
        statuses=statuses,
        wall_s=round(time.perf_counter() - t0, 3),
        cache_hits=cache.hits if cache else 0,
        cache_misses=cache.misses if cache else 0,
    )
    if tracker:
        tracker.progress(skipped + done)
        tracker.finish("done", results=summary.model_dump(mode="json"))
    return summary


def run_eval(
    spec: RunSpec,
    settings: Settings | None = None,
    *,
    client: ChatClient | None = None,
    backend: SearchBackend | None = None,
    runtime: Runtime | None = None,
    progress: Progress | None = None,
    lock: OutputLock | None = None,
) -> RunSummary:
    """Synchronous entry (CLI, tests). See run_eval_async."""
    return asyncio.run(
        run_eval_async(
            spec,
            settings,
            client=client,
            backend=backend,
            runtime=runtime,
            progress=progress,
            lock=lock,
        )
    )
