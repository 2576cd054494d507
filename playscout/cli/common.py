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

import orjson
import typer
import yaml
from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)
from rich.text import Text

from playscout.cli.errors import warn
from playscout.cli.plain_progress import PlainProgress
from playscout.config import ConfigError, Settings, deep_merge, dotted_overrides
from playscout.config.presets import preset_names
from playscout.corpus.sports import sport_names
from playscout.errors import displayable_json
from playscout.storage import human_bytes
from playscout.tools.roles import ROLES

console = Console(stderr=True)
out = Console()


class CountColumn(ProgressColumn):
    """`done/total` when the total is known, else the count so far (never `49/?`)."""

    def render(self, task: Task) -> Text:
        done = int(task.completed)
        shown = f"{done}/{int(task.total)}" if task.total is not None else f"{done}"
        return Text(shown, style="progress.download")


class RateColumn(ProgressColumn):
    """Items a second at the stage's recent pace: a pipeline's slow stage shows as slow."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.0f}/s" if speed else "", style="progress.data.speed")


PLAIN_INTERVAL_S = 10.0  # seconds between a stage's lines when stderr is not a terminal


@contextmanager
def progress_bar(units: str = "items") -> Iterator[Callable[[str, int, int | None], None]]:
    """Progress with one stage per label; yields the callback libraries call
    (`update(label, done, total)`). A stage is finished (tick, clock stopped) once done reaches
    its total; libraries that learn a stage's total only at its end say so then, and announce
    a stage with `done=0` when its work starts, so its clock measures the stage. When the block
    ends without an error, every stage still open is finished as it stands. Nothing is shown
    before the first update. On a terminal: a rich bar with an ETA; elsewhere (a log, a pipe):
    plain lines, at most one per stage every PLAIN_INTERVAL_S (plain_progress.py).
    `units="bytes"` shows sizes (and a rate on a terminal) instead of counts."""
    if not console.is_terminal:
        amount = human_bytes if units == "bytes" else str
        plain = PlainProgress(
            lambda line: console.print(line, highlight=False, markup=False, soft_wrap=True),
            PLAIN_INTERVAL_S,
            amount=amount,
        )
        yield plain.update
        plain.close()
        return
    counts = (
        (DownloadColumn(), TransferSpeedColumn())
        if units == "bytes"
        else (CountColumn(), RateColumn())
    )
    bar = Progress(
        SpinnerColumn(finished_text="[green]✓[/green]"),
        TextColumn("{task.description}"),
        BarColumn(),
        *counts,
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console,
    )
    tasks: dict[str, TaskID] = {}

    def update(label: str, done: int, total: int | None) -> None:
        """The bar appears with the first update, so a command refused before its work
        starts prints its error line alone."""
        if not bar.live.is_started:
            bar.start()
        if label not in tasks:
            tasks[label] = bar.add_task(label, total=total)
        bar.update(tasks[label], completed=done, total=total)

    try:
        yield update
        for task in bar.tasks:
            if not task.finished:
                bar.update(task.id, total=task.completed)
    finally:
        if bar.live.is_started:  # rich prints a newline on stop when not on a terminal
            bar.stop()


def settings() -> Settings:
    """Settings from the environment alone (commands without --config)."""
    return Settings.load()


def settings_for(index: str | None, corpus: Path | None = None) -> Settings:
    """Settings from the environment, with the command's --index/--corpus when given."""
    return Settings.load(overrides={"index": index, "corpus_dir": corpus})


ENDPOINTS: dict[str, tuple[str, str]] = {
    "llm": ("agent.llm", "the agent's model"),
    **{r.flag: (r.path, r.help) for r in ROLES.values()},
    "judge": ("eval.judge", "the LLM judge"),
}
"""The model endpoints a command can take as `--<name>-url` / `--<name>-model` flags, with the
setting each one fills: the agent's, each tool's model role (tools/roles.py), the judge's."""
TOOL_MODELS = tuple(r.flag for r in ROLES.values())
"""The flags of every tool's model: what a command that runs the agent takes."""


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
                        show_default="none",
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
                        help=f"Protocol preset: {' | '.join(preset_names())} "
                        "(docs/presets.md) | a preset file.",
                        show_default="paper for eval, extended otherwise",
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
                        show_default="none",
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
                                help=f"{noun} of {what}.",
                                show_default=f"{path}.{'base_url' if part == 'url' else 'model'}",
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


def _is_seconds(key: str) -> bool:
    return key == "seconds" or key.endswith(("_seconds", "_s"))


def human(value: Any, key: str = "") -> str:
    """One value for people: times as `61.4 s`, sizes in MB, floats to 4 digits, lists joined,
    a flat mapping as `2 games, 511 clips` (never a Python repr)."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float) and _is_seconds(key):
        return f"{value:.1f} s"
    if isinstance(value, int) and key.endswith("bytes"):
        return human_bytes(value)
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, dict):
        return ", ".join(_pairs(value))
    if isinstance(value, list | tuple):
        return ", ".join(human(v) for v in value) or "-"
    return str(value)


def _label(key: str) -> str:
    """`wall_seconds` -> `wall time`, `size_bytes` -> `size`, `observed_clips` -> `observed clips`
    (a bare `bytes` says nothing its value does not)."""
    if _is_seconds(key):
        stem = key.removesuffix("seconds").removesuffix("_s").strip("_").replace("_", " ")
        return f"{stem} time".strip()
    return key.removesuffix("bytes").rstrip("_").replace("_", " ")


def games_phrase(games: int, with_clips: int) -> str:
    """The one way a game count is printed: every game, then how many of them have clips
    (`7 games (2 with clips)`); corpora give some games documents only."""
    return f"{games} games ({with_clips} with clips)"


def _pairs(data: dict[str, Any]) -> list[str]:
    """A mapping's pairs; `games` with `clip_games` beside it become one games_phrase."""
    parts = []
    for key, value in data.items():
        if key == "clip_games" and "games" in data:
            continue
        if key == "games" and isinstance(data.get("clip_games"), int):
            parts.append(games_phrase(value, data["clip_games"]))
        else:
            parts.append(_pair(key, value))
    return parts


def _pair(key: str, value: Any) -> str:
    """`2 games`, `build 77.0 s`, `model minilm`: a number before its name, else after."""
    name = _label(key)
    if _is_seconds(key):
        return f"{name.removesuffix('time').strip()} {human(value, key)}".strip()
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"{human(value, key)} {name}".strip()
    return f"{name} {human(value, key)}"


def print_counts(data: dict[str, Any], title: str, indent: int = 1) -> None:
    """A summary as `key: value` lines; a mapping that holds mappings becomes an indented
    block, a flat one a single line (`basketball: 2 games, 511 clips, 0.2 s`)."""
    if title:
        out.print(f"[bold]{title}[/bold]", highlight=False)
    pad = "  " * indent
    for key, value in data.items():
        label = _label(key)
        nested = isinstance(value, dict) and any(isinstance(v, dict) for v in value.values())
        if nested:
            out.print(f"{pad}{label}:", highlight=False, markup=False)
            print_counts(value, "", indent + 1)
        else:
            shown = human(value, key)
            out.print(f"{pad}{label}: {shown}", highlight=False, markup=False, soft_wrap=True)


def print_json(data: Any) -> None:
    """Exactly one JSON document on stdout, for scripts (progress and warnings go to stderr).
    Names that are not UTF-8 are escaped (errors.displayable), never a traceback."""
    text = orjson.dumps(
        displayable_json(data), option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS, default=str
    )
    typer.echo(text.decode())


IndexOpt = Annotated[
    str | None,
    typer.Option(
        help="Index directory or http(s)://host:9200/prefix.", show_default="settings.index"
    ),
]
ModeOpt = Annotated[
    str | None,
    typer.Option(
        help="default (video and what it sounds like) | oracle (ground-truth captions)",
        show_default="serving.mode, else default",
    ),
]
PolicyOpt = Annotated[
    str | None,
    typer.Option(
        help="llm (agent over a model) | workflow (offline baseline)",
        show_default="serving.policy, else llm",
    ),
]
SportOpt = Annotated[
    str | None,
    typer.Option(
        help=" | ".join(sport_names()), show_default="serving.sport, else the index's first"
    ),
]
ListOpt = Annotated[list[str] | None, typer.Option()]
JsonOpt = Annotated[
    bool,
    typer.Option("--json", help="Print the result as one JSON document on stdout (for scripts)."),
]


@contextmanager
def preflight_hints() -> Iterator[None]:
    """A preflight refusal on the command line (`error: preflight: ...`, exit 2) names the
    flags that fix its first failed check (`--llm-url/--llm-model`)."""
    from playscout.runtime.preflight import ROLES, PreflightError

    try:
        yield
    except PreflightError as e:
        flags = {path: name for name, (path, _) in ENDPOINTS.items()}
        name = e.check.name if e.check is not None else ""
        flag = flags.get(ROLES[name].path) if name in ROLES else None
        hint = f" (--{flag}-url/--{flag}-model)" if flag else ""
        raise PreflightError(f"{e}{hint}", e.check) from None


def warn_all(warnings: list[str]) -> list[str]:
    """What would not stop the command, on stderr; returned (for --json)."""
    for warning in warnings:
        warn(warning)
    return warnings


def checked(checks: list[Any]) -> list[str]:
    """A preflight's outcome on the command line: a failed check stops the command with the
    flags that fix it (`preflight_hints`); the warnings go to stderr and are returned."""
    from playscout.runtime.preflight import require

    with preflight_hints():
        warnings = require(checks)
    return warn_all([w.detail for w in warnings])
