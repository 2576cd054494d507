"""`playscout ask` and `playscout trajectory ...`: run the agent on one question, read a run."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from playscout.cli.common import (
    IndexOpt,
    ModeOpt,
    PolicyOpt,
    RunConfig,
    SportOpt,
    configurable,
    out,
    print_counts,
)
from playscout.cli.errors import user_errors
from playscout.config import DEFAULT_MODE, DEFAULT_POLICY

trajectory_app = typer.Typer(no_args_is_help=True, help="Read agent trajectories.")


@user_errors
@configurable("llm", "vlm", "doc-llm", "caption-llm")
def ask(
    question: Annotated[str, typer.Argument(help="The question.")],
    index: IndexOpt = None,
    corpus: Annotated[
        Path | None, typer.Option(help="Corpus root (clip media for video_qa).")
    ] = None,
    sport: SportOpt = "basketball",
    mode: ModeOpt = DEFAULT_MODE,
    policy: PolicyOpt = DEFAULT_POLICY,
    max_llm_calls: Annotated[int | None, typer.Option(help="LLM call budget.")] = None,
    tool_protocol: Annotated[
        str | None, typer.Option(help="native | text | structured | auto")
    ] = None,
    trajectory: Annotated[Path | None, typer.Option(help="Write the trajectory here.")] = None,
    *,
    run_config: RunConfig,
) -> None:
    """Answer a question with the agent; prints the answer, its evidence and a summary."""
    from playscout.agent import AgentError, summarise
    from playscout.runtime import Runtime, parse_mode, parse_policy

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
    runtime = Runtime.from_settings(settings.model_copy(update={"agent": agent_settings}))
    agent = runtime.agent(runtime.tool_context(sport, run_mode), run_policy)
    result = agent.run_sync(question, trajectory=trajectory)
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
    summary = summarise(result.events)
    print_counts(
        {
            "turns": summary.turns,
            "tool calls": ", ".join(f"{k}={v}" for k, v in summary.tool_calls.items()) or "-",
            "errors": summary.errors,
            "tokens (prompt/completion)": f"{summary.prompt_tokens}/{summary.completion_tokens}",
            "wall s": f"{result.wall_s:.2f}",
            "trajectory": str(trajectory) if trajectory else "-",
        },
        title="run",
    )
    if result.status == "error":
        typer.echo(f"error: {result.error}", err=True)  # why the run failed, not just that
        raise typer.Exit(1)


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
