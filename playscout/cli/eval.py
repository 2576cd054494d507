"""`playscout eval ...`: run, judge, report, compare, tasks. A Typer sub-app the main CLI
registers with `app.add_typer(eval_app, name="eval")`. User errors end in one line."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from playscout.cli.common import (
    TOOL_MODELS,
    IndexOpt,
    JsonOpt,
    RunConfig,
    checked,
    configurable,
    out,
    preflight_hints,
    print_json,
    progress_bar,
    warn_all,
)
from playscout.cli.errors import failed, user_errors, warn
from playscout.errors import one_line

eval_app = typer.Typer(
    no_args_is_help=True, help="Benchmark runs: run, judge, report, compare, export."
)


@eval_app.command("run")
@user_errors
@configurable("llm", *TOOL_MODELS, "judge")
def run_cmd(
    task: Annotated[str, typer.Option(help="Task name (see `playscout eval tasks`).")] = "t9",
    data: Annotated[
        Path | None,
        typer.Option(
            help="The task's published data file or folder (formats: `eval tasks`).",
            show_default="the corpus' questions",
        ),
    ] = None,
    media: Annotated[
        Path | None,
        typer.Option(help="Where --data's videos are.", show_default="the data file's folder"),
    ] = None,
    mode: Annotated[
        str | None, typer.Option(help="default | oracle", show_default="serving.mode, else default")
    ] = None,
    sport: Annotated[
        str | None,
        typer.Option(
            help="Comma-separated sports.",
            show_default="serving.sport, else every sport the corpus has that the index holds "
            "and has questions for; with --data: every sport in it",
        ),
    ] = None,
    policy: Annotated[
        str | None,
        typer.Option(
            help="llm | workflow (offline baseline)", show_default="serving.policy, else llm"
        ),
    ] = None,
    concurrency: Annotated[
        int | None, typer.Option(help="Questions in flight.", show_default="eval.concurrency")
    ] = None,
    out_dir: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Run directory (resumes if it exists).",
            show_default="a new one in settings.eval.runs_dir named by time, task, mode and model",
        ),
    ] = None,
    index: IndexOpt = None,
    corpus: Annotated[
        Path | None, typer.Option(help="Corpus root.", show_default="settings.corpus_dir")
    ] = None,
    limit: Annotated[
        int | None, typer.Option(help="Questions per sport at most.", show_default="all")
    ] = None,
    retry_failed: Annotated[
        bool, typer.Option(help="Re-run questions whose status is error.")
    ] = False,
    rerun_changed: Annotated[
        bool,
        typer.Option(
            help="Resume although questions changed since they ran: re-run the changed ones, "
            "drop the removed ones, mark the run mixed."
        ),
    ] = False,
    no_cache: Annotated[bool, typer.Option(help="Do not use the response cache.")] = False,
    strict: Annotated[
        bool,
        typer.Option(
            help="Refuse to start a run that could not be comparable to SVI-Bench Table 15 "
            "(its preset, policy, model roles, index embedders, judge, corpus)."
        ),
    ] = False,
    json_out: JsonOpt = False,
    *,
    run_config: RunConfig,
) -> None:
    """Run a task; killed runs continue where they stopped when run again with the same --out.

    Exit 0: every question ran; 1: some failed (status error; the first reason is printed);
    2: the run could not start (preflight: model servers, sports, what the index holds; with
    --data, the published data and what its task needs; with --strict, a run that could not
    be comparable to the paper)."""
    from playscout.eval.running.runner import run_eval
    from playscout.usecases.run import LocalRun, prepare_run

    request = LocalRun.of(
        task=task,
        sport=sport,
        mode=mode,
        policy=policy,
        limit=limit,
        strict=strict,
        data=data,
        media=media,
        out_dir=out_dir,
        concurrency=concurrency,
        retry_failed=retry_failed,
        rerun_changed=rerun_changed,
    )
    settings = run_config.settings(index=index, corpus_dir=corpus)
    if no_cache:
        settings.eval.cache_db = None
    with preflight_hints():  # what POST /v1/runs checks too, with the same defaults
        prepared = prepare_run(request, settings)
    warnings = warn_all(prepared.warnings)
    spec = prepared.spec
    with progress_bar() as update:
        summary = run_eval(
            spec,
            prepared.settings,
            runtime=prepared.runtime,
            progress=lambda done, total: update(f"{spec.task} {spec.mode}", done, total),
        )
    _print_summary(summary, Path(spec.out_dir), warnings, json_out)


def _print_summary(summary: Any, out_dir: Path, warnings: list[str], json_out: bool) -> None:
    """What the run did, for people or (--json) for scripts; `failed: ...`, exit 1, when some
    questions ended with status error."""
    from playscout.eval.storage.store import load_results

    errors = [r for r in load_results(out_dir) if r.status == "error"]
    if json_out:
        first = {"qid": errors[0].qid, "error": errors[0].error} if errors else None
        print_json(
            {
                **summary.model_dump(mode="json"),
                "failed": len(errors),
                "first_error": first,
                "warnings": warnings,
            }
        )
    else:
        counts = ", ".join(f"{n} {status}" for status, n in summary.statuses.items()) or "none"
        out.print(
            f"ran {summary.ran} of {summary.total} questions ({summary.skipped} already done) "
            f"in {summary.wall_s:.1f} s: {counts}; response cache {summary.cache_hits} hits, "
            f"{summary.cache_misses} misses",
            highlight=False,
        )
        out.print(f"next: playscout eval judge {out_dir} && playscout eval report {out_dir}")
    if errors:
        raise failed(_failures(errors, summary.total))


def _failures(errors: list[Any], total: int) -> str:
    first = f"first ({errors[0].qid}): {one_line(errors[0].error or 'no reason recorded')}"
    if all(e.error_kind for e in errors):  # the disk or the model server: not the questions
        again = "the same command runs them again once the cause is fixed"
    else:
        again = "--retry-failed runs them again"
    if len(errors) == total:
        return f"every question failed ({total}); {first}; {again}"
    return f"{len(errors)} of {total} questions failed; {first}; {again}"


@eval_app.command("judge")
@user_errors
@configurable("judge")
def judge_cmd(
    run_dir: Annotated[Path, typer.Argument(help="Run directory.")],
    judge: Annotated[
        str | None,
        typer.Option(help="llm | equivalence", show_default="llm if configured, else equivalence"),
    ] = None,
    json_out: JsonOpt = False,
    *,
    run_config: RunConfig,
) -> None:
    """Judge the answers of a run (re-runnable: only new or changed answers are judged), with
    the judge prompt of the run's preset (or --preset) and the LLM judge the run was made with
    (its endpoint and generation settings, from run.json) unless --judge-url/--judge-model,
    --config or --set say otherwise.

    Exit 1 when the LLM judge could not judge some answers (the first reason is printed); the
    equivalence judge's abstentions (answers only a reader can judge) are a warning."""
    from playscout.agent.tracing import otlp_tracer
    from playscout.config.presets import load_preset
    from playscout.eval.running.judge import (
        judge_run,
        make_judge,
        run_aliases,
        run_judge_settings,
        run_preset,
    )
    from playscout.eval.storage.store import judgements_store, load_results
    from playscout.runtime.preflight import Needs, check_models
    from playscout.tools.offer import check_preset_tools

    settings = run_config.settings(**run_judge_settings(run_dir))
    ev = settings.eval
    kind = judge or ("llm" if ev.judge.configured else "equivalence")
    if kind == "llm":
        checked(asyncio.run(check_models(settings, Needs(judge=True))))
    recorded = run_preset(run_dir)  # first: a folder that is not a run is one line
    preset = load_preset(settings.preset or recorded)
    check_preset_tools(preset, settings.search, settings.qa)
    aliases = run_aliases(run_dir) if kind == "equivalence" else None
    stats = judge_run(
        run_dir,
        make_judge(kind, ev, preset.judge_prompt, aliases),
        ev.judge_concurrency,
        otlp_tracer(settings.telemetry),
        settings.telemetry,
    )
    model = ev.judge.model if kind == "llm" else None
    if json_out:
        print_json({"judge": kind, "model": model, "preset": preset.name,
                    "prompt": preset.judge_prompt, **stats})  # fmt: skip
    else:
        out.print(
            f"judge {kind}{f' {model}' if model else ''} (preset {preset.name}, "
            f"prompt {preset.judge_prompt}): "
            f"{stats['judged_now']} judged now, {stats['cached']} already judged; "
            f"{stats['right']} right, {stats['wrong']} wrong, {stats['unjudged']} unjudged",
            highlight=False,
        )
    if not stats["unjudged"]:
        return
    verdicts = judgements_store(run_dir).latest()
    keys = [(row.qid, kind) for row in load_results(run_dir)]  # question order
    first = next(verdicts[k] for k in keys if k in verdicts and verdicts[k]["verdict"] is None)
    reason = f"first ({first['qid']}): {one_line(first.get('reason') or 'no reason recorded')}"
    if kind == "equivalence":  # it abstains by design where only a reader can tell
        warn(f"{stats['unjudged']} answers need a reader (--judge llm decides them); {reason}")
        return
    raise failed(f"{stats['unjudged']} answers could not be judged; {reason}")


@eval_app.command("report")
@user_errors
def report_cmd(
    run_dirs: Annotated[list[Path], typer.Argument(help="One run, or several to compare.")],
    out_dir: Annotated[
        Path | None, typer.Option("--out", help="Where to write.", show_default="the first run")
    ] = None,
    judge: Annotated[
        str | None,
        typer.Option(
            help="Which judge's verdicts to use.",
            show_default="the LLM judge's when it ran, else equivalence",
        ),
    ] = None,
) -> None:
    """Write report.md, report.json and PNG plots."""
    from playscout.eval.results.report import write_report

    res = write_report(run_dirs, out_dir, judge)
    out.print(
        Path(res["out"], "report.md").read_text(), markup=False, highlight=False, soft_wrap=True
    )
    out.print(f"wrote {', '.join(res['files'])} to {res['out']}")


@eval_app.command("compare")
@user_errors
def compare_cmd(
    run_a: Annotated[Path, typer.Argument(help="First run (e.g. default).")],
    run_b: Annotated[Path, typer.Argument(help="Second run (e.g. oracle).")],
    out_dir: Annotated[
        Path | None,
        typer.Option("--out", help="Where to write.", show_default="compare_A_B beside run A"),
    ] = None,
) -> None:
    """Side-by-side report of two runs, and the questions whose verdict changed."""
    from playscout.eval.results.catalog import run_at
    from playscout.eval.results.compare import comparison

    report_cmd([run_a, run_b], out_dir or run_a.parent / f"compare_{run_a.name}_{run_b.name}", None)
    _, rows_a = run_at(run_a)
    _, rows_b = run_at(run_b)
    cmp = comparison(str(run_a), str(run_b), rows_a, rows_b, limit=max(1, len(rows_a)))
    table = Table("question", "A", "B", "change", "A human", "B human",
                  title="Right/wrong changes (A -> B); human: a person's verdict")  # fmt: skip
    for row in cmp.items:
        if row.change in ("fixed", "broken", "unjudged") or row.human_a or row.human_b:
            table.add_row(row.qid, row.a or "-", row.b or "-", row.change,
                          row.human_a or "-", row.human_b or "-")  # fmt: skip
    out.print(table)
    counts = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in cmp.counts.items())
    out.print(
        f"{cmp.total} questions in both: {counts}; only in A {cmp.only_a}, only in B {cmp.only_b}"
    )
    for side in ("a", "b"):
        h = cmp.human[side]
        out.print(f"human verdicts {side.upper()}: " + ", ".join(f"{k} {v}" for k, v in h.items()))


@eval_app.command("export")
@user_errors
def export_cmd(
    run_dir: Annotated[Path, typer.Argument(help="Run directory.")],
    html: Annotated[Path, typer.Option("--html", help="Folder to write the static browser to.")],
    corpus: Annotated[
        Path | None, typer.Option(help="Corpus root with the clips.", show_default="the run's")
    ] = None,
    media: Annotated[
        bool, typer.Option(help="Copy the clips, thumbnails and video_qa frames it shows.")
    ] = True,
    baseline: Annotated[
        Path | None,
        typer.Option(
            help="Another run of the same questions: outline each first divergent turn.",
            show_default="none",
        ),
    ] = None,
) -> None:
    """Write a run as a static run browser that opens from disk (index.html), no server."""
    from playscout.cli.common import progress_bar
    from playscout.corpus import Corpus
    from playscout.serving.export import export_run

    root = (corpus or _run_corpus(run_dir)) if media else None
    with progress_bar() as update:
        res = export_run(
            run_dir, html, Corpus(root) if root else None, progress=update, baseline=baseline
        )
    out.print(
        f"exported {res.questions} questions, {res.clips} clips and {res.frames} frames to "
        f"{res.out}; open {res.out / 'index.html'}"
    )
    if media and root is None:
        out.print("no corpus given or recorded in the run: clips and frames were not exported")
    if res.missing_clips:
        out.print(f"{len(res.missing_clips)} clips have no media file in the corpus: "
                  + ", ".join(res.missing_clips[:5]))  # fmt: skip


def _run_corpus(run_dir: Path) -> Path | None:
    """The corpus the run was made with (run.json), if it is still there."""
    import orjson

    from playscout.eval.storage.store import RUN_JSON

    try:
        meta = orjson.loads((run_dir / RUN_JSON).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    root = (meta.get("settings") or {}).get("corpus_dir")
    return Path(root) if root and Path(root).is_dir() else None


@eval_app.command("tasks")
def tasks_cmd(
    markdown: Annotated[
        bool, typer.Option(help="Print the tables of docs/published-data.md instead.")
    ] = False,
) -> None:
    """List the tasks: what each runs on the synthetic corpus, its metric, the published
    formats it reads with --data (and where each is documented), and what such a run needs."""
    from playscout.eval.tasks import listing as tasklist
    from playscout.eval.tasks.registry import all_tasks

    if markdown:
        out.print(tasklist.markdown(), end="", highlight=False, markup=False, soft_wrap=True)
        return
    for task in all_tasks():
        for text in tasklist.lines(task):
            out.print(text, highlight=False, markup=False, soft_wrap=True)
