"""`playscout ask` and `playscout trajectory ...`: run the agent on one question, read a run."""

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
    ModeOpt,
    PolicyOpt,
    RunConfig,
    SportOpt,
    checked,
    configurable,
    out,
    print_counts,
    print_json,
)
from playscout.cli.errors import failed, user_errors
from playscout.config import DEFAULT_MODE, DEFAULT_POLICY

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
    sport: SportOpt = "basketball",
    mode: ModeOpt = DEFAULT_MODE,
    policy: PolicyOpt = DEFAULT_POLICY,
    max_llm_calls: Annotated[
        int | None, typer.Option(help="LLM call budget.", show_default="agent.max_llm_calls")
    ] = None,
    tool_protocol: Annotated[
        str | None,
        typer.Option(help="native | text | structured | auto", show_default="agent.tool_protocol"),
    ] = None,
    trajectory: Annotated[
        Path | None, typer.Option(help="Write the trajectory here.", show_default="not written")
    ] = None,
    json_out: JsonOpt = False,
    *,
    run_config: RunConfig,
) -> None:
    """Answer a question with the agent; prints the answer, its evidence and a summary.

    Exit 0: answered; 1: the run ended without an answer (the reason is printed); 2: it could
    not start (preflight: model server, sport, what the index holds for the mode)."""
    from playscout.agent import AgentError, summarise
    from playscout.agent.question import visible_question
    from playscout.config.presets import DEFAULT_PRODUCT_PRESET, load_preset
    from playscout.runtime import Runtime, parse_mode, parse_policy
    from playscout.runtime.preflight import ask_needs, check_models, check_run

    visible_question(question)  # before any model or index is opened
    run_mode, run_policy = parse_mode(mode), parse_policy(policy)
    settings = run_config.settings(index=index, corpus_dir=corpus)
    agent_settings = settings.agent.model_copy(deep=True)
    if max_llm_calls:
        agent_settings.max_llm_calls = max_llm_calls
    if tool_protocol:
        if tool_protocol not in ("native", "text", "structured", "auto"):
            raise AgentError(
                f"--tool-protocol must be native, text, structured or auto, not {tool_protocol!r}"
            )
        agent_settings.tool_protocol = tool_protocol  # type: ignore[assignment]  # checked above
    preset = load_preset(settings.preset or DEFAULT_PRODUCT_PRESET)
    needs = ask_needs(preset, sport, run_mode, run_policy)
    # The model servers first: a dead one is known in a second, before the index is opened.
    warnings = checked(asyncio.run(check_models(settings, needs)))
    runtime = Runtime.from_settings(settings.model_copy(update={"agent": agent_settings}))
    warnings += checked(check_run(runtime, needs))  # the API's asks run the same checks
    agent = runtime.agent(runtime.tool_context(sport, run_mode), run_policy)
    result = agent.run_sync(question, trajectory=trajectory)
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
                "warnings": [w.detail for w in warnings],
                "trajectory": str(trajectory) if trajectory else None,
                "summary": summary.model_dump(mode="json"),
            }
        )
    else:
        _print_answer(result, summary, trajectory)
    if reason is not None:
        raise failed(f"no answer ({result.status}): {reason}")


def why_no_answer(events: list[Any], status: str) -> str:
    """The run's own error, else what its status means."""
    from playscout.agent.trajectory import failure_reason

    return failure_reason(events) or {
        "budget_exhausted": "the LLM call budget ran out (--max-llm-calls)",
        "no_answer": "the agent gave up without an answer",
    }.get(status, status)


def _print_answer(result: Any, summary: Any, trajectory: Path | None) -> None:
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
            "trajectory": str(trajectory) if trajectory else "-",
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
