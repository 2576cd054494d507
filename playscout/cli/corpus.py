"""`playscout corpus ...`: validate, generate, render and write questions for corpora."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from playscout.cli.common import (
    JsonOpt,
    console,
    out,
    print_counts,
    print_json,
    progress_bar,
    split_list,
)
from playscout.cli.errors import EXIT_FAILURES, failed, user_errors

corpus_app = typer.Typer(no_args_is_help=True, help="Load, validate and generate corpora.")


@corpus_app.command("validate")
@user_errors
def corpus_validate(
    root: Annotated[Path, typer.Argument(help="Corpus root (T9 layout).")],
    strict: Annotated[
        bool, typer.Option(help="Warnings (absent clip files) fail too (exit 1).")
    ] = False,
    json_out: JsonOpt = False,
) -> None:
    """Check every file of a corpus; list each problem with its file and field, and warn of
    clip files clip_paths lists but the disk lacks.

    Exit 1 when there are problems (or, with --strict, warnings); 2 when ROOT is no corpus
    (no such folder, or no data/ folder in it)."""
    from playscout.corpus import Corpus, validate_corpus
    from playscout.corpus.validate import NO_VIDEO

    Corpus(root)  # a path that is no corpus at all is the user's error (exit 2), not a problem
    with progress_bar() as update:
        report = validate_corpus(root, progress=update)
    if json_out:
        print_json(
            {
                "root": str(root),
                "ok": report.ok,
                "counts": report.counts,
                "no_video": report.no_video,
                "problems": [str(p) for p in report.problems],
                "warnings": [str(w) for w in report.warnings],
            }
        )
        if not report.ok or (strict and report.warnings):
            raise typer.Exit(EXIT_FAILURES)
        return
    columns = ("clips", "clip_files", "documents", "questions")
    table = Table("sport", "games", *(c.replace("_", " ") for c in columns))
    for sport, c in report.counts.items():
        games = f"{c['games']} ({c['clip_games']} with clips)"
        table.add_row(sport, games, *(str(c[k]) for k in columns))
    out.print(table)
    if report.no_video:
        out.print(f"note: {NO_VIDEO}", highlight=False, soft_wrap=True)
    for problem in report.problems[:200]:
        out.print(f"[red]problem[/red] {problem}", highlight=False)
    if len(report.problems) > 200:
        out.print(f"... and {len(report.problems) - 200} more problems")
    for warning in report.warnings:
        console.print(f"[yellow]warning[/yellow] {warning}", highlight=False, soft_wrap=True)
    if not report.ok:
        raise failed(f"{len(report.problems)} problems in {root}")
    if strict and report.warnings:
        raise failed(f"{len(report.warnings)} warnings in {root} (--strict)")
    warned = f" ({len(report.warnings)} warnings)" if report.warnings else ""
    out.print(f"[green]ok[/green]: {root} is a valid corpus{warned}")


@corpus_app.command("synth")
@user_errors
def corpus_synth(
    out_dir: Annotated[Path, typer.Option("--out", help="Where to write the corpus.")],
    games: Annotated[int, typer.Option(help="Games in total (7430 = the T9 release).")] = 24,
    sports: Annotated[
        str,
        typer.Option(help="Comma-separated sports.", show_default="every sport the generator has"),
    ] = "",
    seed: Annotated[int, typer.Option(help="Same seed, same corpus.")] = 0,
    workers: Annotated[int, typer.Option(help="Processes (0 = one per core).")] = 0,
    json_out: JsonOpt = False,
) -> None:
    """Generate a synthetic corpus in the T9 release layout."""
    from playscout.synthetic import generate_corpus

    start = time.perf_counter()
    with progress_bar() as update:
        summary = generate_corpus(
            out_dir,
            games=games,
            sports=split_list(sports),
            seed=seed,
            workers=workers or None,
            progress=update,
        )
    if json_out:
        print_json(summary.model_dump(mode="json"))
        return
    print_counts(summary.model_dump(), title=f"synthetic corpus in {out_dir}")
    out.print(f"done in {time.perf_counter() - start:.1f} s")


@corpus_app.command("render")
@user_errors
def corpus_render(
    corpus: Annotated[Path, typer.Option(help="Synthetic corpus written by `corpus synth`.")],
    out_dir: Annotated[Path, typer.Option("--out", help="Where videos, pbp.json and truth go.")],
    sport: Annotated[
        str | None, typer.Option(help="Only this sport.", show_default="every sport")
    ] = None,
    games: Annotated[int, typer.Option(help="Games to render (first of each sport).")] = 1,
    start: Annotated[float, typer.Option(help="Start of the excerpt (video seconds).")] = 0.0,
    minutes: Annotated[
        float | None,
        typer.Option(help="Length of the excerpt (minutes).", show_default="the whole game"),
    ] = None,
    fps: Annotated[int, typer.Option()] = 25,
    size: Annotated[str, typer.Option(help="WIDTHxHEIGHT")] = "640x360",
    seed: Annotated[int, typer.Option()] = 0,
    commentary: Annotated[bool, typer.Option(help="Spoken commentary (espeak-ng).")] = True,
) -> None:
    """Render synthetic broadcast video (scoreboard, cuts, replays, ads, commentary) for games
    of a synthetic corpus, with the play-by-play to index it and the ground truth to score it."""
    from playscout.synthetic.broadcast import render_corpus

    try:
        width, height = (int(v) for v in size.lower().split("x"))
    except ValueError:
        raise typer.BadParameter(f"--size must be WIDTHxHEIGHT, not {size!r}") from None
    results = render_corpus(
        corpus,
        out_dir,
        sport=sport,
        games=games,
        start=start,
        duration=None if minutes is None else minutes * 60.0,
        fps=fps,
        size=(width, height),
        seed=seed,
        commentary=commentary,
    )
    for r in results:
        out.print(f"{r.video}  {r.duration:.0f} s video in {r.wall_seconds:.1f} s")
    out.print(f"play-by-play: {out_dir / 'pbp.json'}")


@corpus_app.command("add-documents")
@user_errors
def corpus_add_documents(
    source: Annotated[Path, typer.Option("--from", help="Corpus that has the documents.")],
    target: Annotated[Path, typer.Option("--to", help="Corpus to add them to (its games).")],
    sports: Annotated[
        str | None, typer.Option(help="Comma-separated sports.", show_default="all")
    ] = None,
) -> None:
    """Copy reports, box scores and season stats of the target's games from another corpus
    (a video corpus from `index videos` has clips only); then run `corpus questions` on the
    target so gold clips are its own clips."""
    from playscout.corpus.merge import add_documents

    for r in add_documents(source, target, split_list(sports) if sports else None):
        out.print(
            f"{r.sport}: {r.game_documents} game documents for {r.games} games, "
            f"{r.season_documents} season documents -> {target}"
        )


@corpus_app.command("questions")
@user_errors
def corpus_questions(
    root: Annotated[Path, typer.Argument(help="Corpus root written by `corpus synth`.")],
    per_sport: Annotated[int, typer.Option(help="Questions per sport.")] = 20,
    seed: Annotated[int, typer.Option()] = 0,
) -> None:
    """Generate T9-style questions with gold evidence for a synthetic corpus."""
    from playscout.corpus import Corpus
    from playscout.synthetic import generate_questions
    from playscout.synthetic.questions import why_no_questions

    Corpus(root)  # no such corpus: one line, exit 2 (was exit 0 with nothing written)
    counts = generate_questions(root, per_sport=per_sport, seed=seed)
    for sport, n in counts.items():
        why = f" ({why_no_questions(root, sport)})" if n == 0 else ""
        out.print(
            f"{sport}: {n} questions -> {root / 'questions' / (sport + '.json')}{why}",
            highlight=False,
            soft_wrap=True,
        )
