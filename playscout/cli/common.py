"""What the CLI's command modules share: consoles, the progress bar, settings resolution, the
common options and the summary table."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
import yaml
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

from playscout.config import ConfigError, Settings, deep_merge, dotted_overrides

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
    """Settings from the environment alone (commands without --config)."""
    return Settings.load()


def settings_for(index: str | None, corpus: Path | None = None) -> Settings:
    """Settings from the environment, with the command's --index/--corpus when given."""
    return Settings.load(overrides={"index": index, "corpus_dir": corpus})


ENDPOINTS: dict[str, tuple[str, str]] = {
    "llm": ("agent.llm", "the agent's model"),
    "vlm": ("qa.vlm", "video_qa's vision-language model"),
    "doc-llm": ("qa.document_llm", "document_qa's model"),
    "caption-llm": ("qa.caption_llm", "video_qa's model in oracle mode (reads captions)"),
    "judge": ("eval.judge", "the LLM judge"),
}
"""The model endpoints a command can take as `--<name>-url` / `--<name>-model` flags, with the
setting each one fills."""


@dataclass
class RunConfig:
    """What a command was told about its settings: `--config FILE`, `--set KEY=VALUE` and the
    model flags. `settings(...)` resolves them (flags > file > environment > defaults)."""

    config: Path | None = None
    overrides: dict[str, Any] = field(default_factory=dict)

    def settings(self, **top: Any) -> Settings:
        """`top` are the command's own top-level settings (index=..., corpus_dir=...)."""
        return Settings.load(self.config, deep_merge(deep_merge({}, top), self.overrides))


def parse_set(items: list[str]) -> list[tuple[str, Any]]:
    """`--set agent.max_llm_calls=10`: the value is read as YAML, so numbers and booleans keep
    their type; the key is checked by Settings like any other."""
    pairs = []
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--set takes KEY=VALUE (e.g. agent.max_llm_calls=10), not {item!r}")
        try:
            value = yaml.safe_load(raw) if raw.strip() else ""
        except yaml.YAMLError:
            value = raw
        pairs.append((key.strip(), value))
    return pairs


F = TypeVar("F", bound=Callable[..., Any])
_PANEL = "Configuration"


def _option(name: str, annotation: Any) -> inspect.Parameter:
    return inspect.Parameter(
        name.replace("-", "_"), inspect.Parameter.KEYWORD_ONLY, default=None, annotation=annotation
    )


def configurable(*endpoints: str) -> Callable[[F], F]:
    """Gives a command `--config`, `--set` and `--<endpoint>-url/-model` for each named model
    endpoint (keys of ENDPOINTS), and hands it one `run_config: RunConfig` in their place, so
    every command reads its settings the same way."""

    def decorate(fn: F) -> F:
        extra = [
            _option(
                "config",
                Annotated[
                    Path | None,
                    typer.Option(
                        "--config",
                        help="Run config (YAML or TOML) validated by the settings; flags win "
                        "over it, it wins over PLAYSCOUT_ variables.",
                        rich_help_panel=_PANEL,
                    ),
                ],
            ),
            _option(
                "preset",
                Annotated[
                    str | None,
                    typer.Option(
                        "--preset",
                        help="Protocol preset: paper (SVI-Bench as the paper ran it) | extended "
                        "| a preset file [default: paper for eval, extended otherwise].",
                        rich_help_panel=_PANEL,
                    ),
                ],
            ),
            _option(
                "set",
                Annotated[
                    list[str] | None,
                    typer.Option(
                        "--set",
                        help="KEY=VALUE for any setting by its dotted path, e.g. "
                        "agent.max_llm_calls=10 (repeatable).",
                        rich_help_panel=_PANEL,
                    ),
                ],
            ),
        ]
        for name in endpoints:
            path, what = ENDPOINTS[name]
            for part, noun in (("url", "OpenAI-compatible base URL"), ("model", "served name")):
                extra.append(
                    _option(
                        f"{name}-{part}",
                        Annotated[
                            str | None,
                            typer.Option(
                                f"--{name}-{part}",
                                help=f"{noun} of {what} ({path}.{'base_url' if part == 'url' else 'model'})",
                                rich_help_panel=_PANEL,
                            ),
                        ],
                    )
                )
        flag_paths = {
            f"{name}_{part}".replace("-", "_"): f"{ENDPOINTS[name][0]}.{key}"
            for name in endpoints
            for part, key in (("url", "base_url"), ("model", "model"))
        }
        own = inspect.signature(fn, eval_str=True)
        params = [p for p in own.parameters.values() if p.name != "run_config"]

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            config = kwargs.pop("config", None)
            preset = kwargs.pop("preset", None)
            sets = kwargs.pop("set", None) or []
            flags = [(flag_paths[k], kwargs.pop(k)) for k in list(flag_paths)]
            pairs = parse_set(sets) + [(p, v) for p, v in flags if v is not None]
            if preset is not None:
                pairs.append(("preset", preset))
            run_config = RunConfig(config=config, overrides=dotted_overrides(pairs))
            return fn(*args, run_config=run_config, **kwargs)

        wrapper.__signature__ = own.replace(parameters=params + extra)  # type: ignore[attr-defined]
        wrapper.__annotations__ = {p.name: p.annotation for p in params + extra}
        return wrapper  # type: ignore[return-value]

    return decorate


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
