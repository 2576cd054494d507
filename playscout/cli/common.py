"""What the CLI's command modules share: consoles, the progress bar, settings resolution, the
common options and the summary table."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TransferSpeedColumn,
)

from playscout.config import Settings

console = Console(stderr=True)
out = Console()


@contextmanager
def progress_bar(units: str = "items") -> Iterator[Callable[[str, int, int | None], None]]:
    """A rich progress bar with one task per label; yields the callback libraries call.
    `units="bytes"` shows sizes and a rate instead of counts."""
    counts = (
        (DownloadColumn(), TransferSpeedColumn()) if units == "bytes" else (MofNCompleteColumn(),)
    )
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        *counts,
        TimeElapsedColumn(),
        console=console,
    ) as bar:
        tasks: dict[str, Any] = {}

        def update(label: str, done: int, total: int | None) -> None:
            if label not in tasks:
                tasks[label] = bar.add_task(label, total=total)
            bar.update(tasks[label], completed=done, total=total)

        yield update


def settings() -> Settings:
    return Settings()


def settings_for(index: str | None, corpus: Path | None = None) -> Settings:
    """Settings from the environment, with the command's --index/--corpus when given."""
    updates = {"index": index, "corpus_dir": corpus}
    return settings().model_copy(update={k: v for k, v in updates.items() if v is not None})


def split_list(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def print_counts(data: dict[str, Any], title: str) -> None:
    out.print(f"[bold]{title}[/bold]")
    for key, value in data.items():
        out.print(f"  {key}: {value}")


IndexOpt = Annotated[
    str | None,
    typer.Option(help="Index directory or http(s)://host:9200/prefix [default: settings.index]."),
]
ModeOpt = Annotated[
    str,
    typer.Option(help="default (video and what it sounds like) | oracle (ground-truth captions)"),
]
PolicyOpt = Annotated[
    str, typer.Option(help="llm (agent over a model) | workflow (offline baseline)")
]
SportOpt = Annotated[str, typer.Option(help="basketball | hockey | soccer")]
ListOpt = Annotated[list[str] | None, typer.Option()]
