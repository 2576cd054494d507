"""`playscout ...`: the root command. Each command group lives in its own module; commands are
thin: they parse, call the runtime or library functions, and print a summary. Errors a user can
cause print one line (`error: ...`) and exit 2 (`cli/errors.py`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from playscout.cli.agent import ask, trajectory_app
from playscout.cli.common import out, progress_bar
from playscout.cli.corpus import corpus_app
from playscout.cli.errors import user_errors
from playscout.cli.index import index_app
from playscout.cli.logs import configure_logging
from playscout.cli.search import search_app

app = typer.Typer(no_args_is_help=True, add_completion=False, help="Agentic sports-video analysis.")
app.add_typer(corpus_app, name="corpus")
app.add_typer(index_app, name="index")
app.add_typer(search_app, name="search")
app.command("ask")(ask)
app.add_typer(trajectory_app, name="trajectory")


@app.callback()
def root(
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose", "-v", help="Show INFO log lines (playscout's and its libraries')."
        ),
    ] = False,
) -> None:
    """Agentic sports-video analysis."""
    configure_logging(verbose)


@app.command("demo")
@user_errors
def demo(
    out_dir: Annotated[Path, typer.Option("--out")] = Path("var/demo"),
    games: Annotated[int, typer.Option(help="Games in total, every one with documents.")] = 12,
    clip_games: Annotated[
        int, typer.Option(help="Games per sport that get clips (captions to embed).")
    ] = 1,
    seed: Annotated[int, typer.Option(help="Same seed, same corpus.")] = 7,
) -> None:
    """Generate a small corpus, index it, and answer its questions' first hops by search."""
    from playscout.cli.demo import run_demo

    run_demo(
        out_dir,
        games=games,
        seed=seed,
        console=out,
        progress=progress_bar,
        clip_games=clip_games,
    )


def _register_subapps() -> None:
    """Serving and eval live in their own layers; the CLI only mounts their commands."""
    from playscout.cli.eval import eval_app
    from playscout.cli.serve import serve_app

    app.add_typer(serve_app, name="serve")
    app.add_typer(eval_app, name="eval")


_register_subapps()


def main() -> None:
    app()


if __name__ == "__main__":
    main()
