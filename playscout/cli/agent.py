"""`playscout ask` and `playscout trajectory ...`: run the agent on one question, read a run."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from playscout.cli.common import (
    TOOL_MODELS,
    IndexOpt,
    JsonOpt,
    ModeOpt,
    PolicyOpt,
    RunConfig,
    SportOpt,
    configurable,
    out,
    preflight_hints,
    print_counts,
    print_json,
    warn_all,
)
from playscout.cli.errors import failed, user_errors
from playscout.config import ToolProtocol

trajectory_app = typer.Typer(no_args_is_help=True, help="Read agent trajectories.")


@user_errors
@configurable("llm", *TOOL_MODELS)
def ask(
    question: Annotated[str, typer.Argument(help="The question.")],
    index: IndexOpt = None,
    corpus: Annotated[
        Path | None,
        typer.Option(
            help="Corpus root (clip media for video_qa).", show_default="settings.corpus_dir"
        ),
    ] = None,
    sport: SportOpt = None,
    mode: ModeOpt = None,
    policy: PolicyOpt = None,
    max_llm_calls: Annotated[
        int | None, typer.Option(help="LLM call budget.", show_default="agent.max_llm_calls")
    ] = None,
    tool_protocol: Annotated[
        ToolProtocol | None,
        typer.Option(
            help="How the model calls tools (auto: native when the server has it).",
            show_default="agent.tool_protocol",
        ),
    ] = None,
    trajectory: Annotated[
        Path | None,
        typer.Option(
            help="Also write the trajectory here (every ask is recorded where `serve` finds it).",
            show_default="only agent.trajectory_dir/ID.jsonl",
        ),
    ] = None,
    json_out: JsonOpt = False,
    *,
    run_config: RunConfig,
) -> None:
    """Answer a question with the agent; prints the answer, its evidence and a summary.

    Exit 0: answered; 1: the run ended without an answer (the reason is printed); 2: it could
    not start (preflight: model server, sport, what the index holds for the mode)."""
    from playscout.agent import summarise
    from playscout.agent.trajectory import JsonlRecorder
    from playscout.usecases.ask import AskRequest, prepare_ask

    request = AskRequest.of(question=question, sport=sport, mode=mode, policy=policy)
    agent = {"max_llm_calls": max_llm_calls, "tool_protocol": tool_protocol}
    settings = run_config.settings(index=index, corpus_dir=corpus, agent=agent)
    with preflight_hints():  # the same checks and defaults as the API's asks
        prepared = prepare_ask(request, settings)
    warnings = warn_all(prepared.warnings)
    run_id, recorded = record_path(settings.agent.trajectory_dir)
    copy = [JsonlRecorder(trajectory)] if trajectory else []
    result = prepared.agent().run_sync(question, trajectory=recorded, run_id=run_id, recorders=copy)
    summary = summarise(result.events)
    reason = None
    if result.status != "answered":  # the run's own one-line error when it failed
        reason = result.error or why_no_answer(result.events, result.status)
    if json_out:
        print_json(
            {
                "question": question,
                "answer": result.answer,
                "status": result.status,
                "reason": reason,
                "forced_final": result.forced_final,
                "note": result.note,
                "evidence": result.evidence,
                "warnings": warnings,
                "id": run_id,
                "trajectory": str(recorded),
                "copy": str(trajectory) if trajectory else None,
                "summary": summary.model_dump(mode="json"),
            }
        )
    else:
        _print_answer(result, summary, run_id, recorded, trajectory)
    if reason is not None:
        raise failed(f"no answer ({result.status}): {reason}")


def record_path(directory: Path) -> tuple[str, Path]:
    """A new ask's id and its file among the API's asks (`agent.trajectory_dir`), so `serve`
    lists it, `/v1/trajectories/{id}` reads it and the run browser shows it (an ask written only
    to `--trajectory FILE`, or not at all, was invisible to both)."""
    from playscout.agent.ids import new_id

    run_id = new_id(random_hex=12)  # the API's ask ids have the same shape
    return run_id, directory / f"{run_id}.jsonl"


def why_no_answer(events: list[Any], status: str) -> str:
    """The run's own error, else what its status means."""
    from playscout.agent.trajectory import failure_reason

    return failure_reason(events) or {
        "budget_exhausted": "the LLM call budget ran out (--max-llm-calls)",
        "no_answer": "the agent gave up without an answer",
    }.get(status, status)


def _print_answer(
    result: Any, summary: Any, run_id: str, recorded: Path, copy: Path | None
) -> None:
    if result.note:
        out.print(f"[yellow]{result.note}[/yellow]")
    out.print(f"[bold]answer:[/bold] {result.answer if result.answer is not None else '-'}")
    out.print(
        f"status: {result.status}"
        + (f" (forced: {result.forced_final})" if result.forced_final else "")
    )
    for key, ids in result.evidence.items():
        if ids:
            shown = ", ".join(ids[:10]) + (f" +{len(ids) - 10} more" if len(ids) > 10 else "")
            out.print(f"{key}: {shown}", highlight=False, markup=False)
    print_counts(
        {
            "turns": summary.turns,
            "tool calls": ", ".join(f"{k}={v}" for k, v in summary.tool_calls.items()) or "-",
            "errors": summary.errors,
            "tokens (prompt/completion)": f"{summary.prompt_tokens}/{summary.completion_tokens}",
            "wall_seconds": result.wall_s,
            "trajectory": str(recorded) + (f" (copy: {copy})" if copy else ""),
            "in the run browser": f"/viewer#/asks/{run_id} (playscout serve)",
        },
        title="run",
    )


@trajectory_app.command("show")
@user_errors
def trajectory_show(
    path: Annotated[Path, typer.Argument(help="A trajectory .jsonl file.")],
    width: Annotated[int, typer.Option(help="Characters of each observation shown.")] = 120,
) -> None:
    """The run as a timeline: turn, tool, arguments, short observation, latency, tokens."""
    from playscout.agent import read_trajectory, summarise
    from playscout.agent.timeline import timeline_rows

    events = read_trajectory(path)
    table = Table("turn", "step", "detail", "latency s", "tokens")
    for row in timeline_rows(events, width):
        table.add_row(*row)
    out.print(table)
    s = summarise(events)
    print_counts(
        {
            "question": s.question,
            "policy": s.policy,
            "model": s.model or "-",
            "turns": s.turns,
            "tool calls": ", ".join(f"{k}={v}" for k, v in s.tool_calls.items()) or "-",
            "errors": s.errors,
            "tokens (prompt/completion)": f"{s.prompt_tokens}/{s.completion_tokens}",
            "wall s": s.wall_s,
            "answer": s.answer,
            "status": s.status,
        },
        title=str(path),
    )
