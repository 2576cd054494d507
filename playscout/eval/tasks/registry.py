"""Benchmark tasks, each one declaration (`declare`): its name, its metric and its sources (the
Task class that generates questions from the synthetic corpus, and each published format with
the parser that reads it and the Task class that routes its items), registered at the end of
the task's module (tasks/t4.py, ...). `TASKS`'s table lists every built-in task and the module
attribute its declaration is kept in; a task's module is imported on its first lookup, so
`import playscout` and `playscout --help` import none of them. A declaration missing a part, or
a second task of the same name, fails at registration with one line.

The lookups the runner, the run use case and the report use are here too: the task over
generated questions (`get_task`), a `--data` path read in the format of the task that fits it
(`read_data`, or one line naming the field that is wrong or the task the file belongs to), and
the task over that data (`published_task`)."""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from playscout.eval.errors import DataFormatError, RunError
from playscout.eval.tasks.reading import NotRunnable
from playscout.registry import Registry, natural_key

if TYPE_CHECKING:
    from playscout.eval.tasks.task import Format, PublishedData, Task

_NAME = re.compile(r"[a-z][a-z0-9_]*")
# What a source must write itself: a generated task its questions, every task its route and
# its metric (the rest has defaults in Task, tasks/task.py).
_GENERATED_PARTS = ("questions", "route", "score")
_ROUTE_PARTS = ("route", "score")


class TaskDeclarationError(RunError):
    """A task declared with a part missing or wrong, or a second time: a bug in its module."""

    user_error = False


@dataclass(frozen=True)
class BenchmarkTask:
    """One task: `generated` asks questions made from the synthetic corpus, `published` reads
    the released files (each Format names its parser, `parse`, and its route); both are Task
    classes (tasks/task.py)."""

    name: str
    metric: str  # what scores it, one line
    generated: type[Task] | None
    published: tuple[Format, ...]
    module: str  # where it is declared

    def task(self) -> Task:
        """The task over generated questions (`eval run` without --data)."""
        if self.generated is None:
            raise RunError(
                f"task {self.name} has no generated questions: run it on its published data "
                "(--data FILE; formats: `playscout eval tasks`)"
            )
        return self.generated()

    def routes(self) -> list[type[Task]]:
        """The published route classes, each once, in the order of their formats."""
        return list(dict.fromkeys(f.route for f in self.published))


_TASKS = "playscout.eval.tasks"
TASKS: Registry[BenchmarkTask] = Registry(
    "task",
    {
        "gameplayqa": f"{_TASKS}.gameplayqa:GAMEPLAYQA",
        "lcric": f"{_TASKS}.lcric:LCRIC",
        "plain": f"{_TASKS}.plain:PLAIN",
        "starbench": f"{_TASKS}.starbench:STARBENCH",
        "t1": f"{_TASKS}.t1:T1",
        "t2": f"{_TASKS}.t2:T2",
        "t3": f"{_TASKS}.t3:T3",
        "t4": f"{_TASKS}.t4:T4",
        "t5": f"{_TASKS}.t5:T5",
        "t6": f"{_TASKS}.t6:T6",
        "t7": f"{_TASKS}.t7:T7",
        "t8": f"{_TASKS}.t8:T8",
        "t9": f"{_TASKS}.t9:T9",
    },
    unknown=RunError,
)
"""Every task by name: the built-ins (each module keeps its `declare(...)` in the attribute
named here), then any declared elsewhere (a plugin, a test)."""


def declare(
    name: str,
    *,
    metric: str,
    generated: type[Task] | None = None,
    published: tuple[Format, ...] = (),
) -> BenchmarkTask:
    """Register the task `name` (call it at module level, where the task is written). Its Task
    classes take `name` when they do not set one; one that names another task fails."""
    caller = inspect.currentframe()
    module = str(caller.f_back.f_globals.get("__name__", "?")) if caller and caller.f_back else "?"
    where = f"task {name!r} ({module})"
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise TaskDeclarationError(f"{where}: a task name is lower-case letters, digits and _")
    if not metric or not metric.strip():
        raise TaskDeclarationError(f"{where}: no metric (say what scores it, one line)")
    if generated is None and not published:
        raise TaskDeclarationError(
            f"{where}: no source: give generated= (a Task class) or published formats"
        )
    if generated is not None:
        label = getattr(generated, "__name__", repr(generated))
        if not _is_task(generated):
            raise TaskDeclarationError(f"{where}: generated {label} is not a Task class")
        missing = _missing(generated, _GENERATED_PARTS)
        if missing:
            raise TaskDeclarationError(f"{where}: generated {label} lacks {', '.join(missing)}")
        _name_free(generated, name, where)
    formats = tuple(_checked_format(f, name, where) for f in published)
    names = [f.name for f in formats]
    if len(set(names)) != len(names):
        raise TaskDeclarationError(f"{where}: two published formats share a name: {names}")
    decl = TASKS.add(name, BenchmarkTask(name, metric.strip(), generated, formats, module))
    for cls in [generated, *(f.route for f in formats)]:  # registered: nothing fails from here
        if cls is not None and not getattr(cls, "name", ""):
            cls.name = name
    return decl


def _is_task(cls: Any) -> bool:
    from playscout.eval.tasks.task import Task

    return isinstance(cls, type) and issubclass(cls, Task)


def _missing(cls: type[Task], parts: tuple[str, ...]) -> list[str]:
    """The parts a Task class leaves to the base."""
    from playscout.eval.tasks.task import Task

    return [p for p in parts if getattr(cls, p) is getattr(Task, p)]


def _name_free(cls: type[Any], name: str, where: str) -> None:
    """A class may leave its name to the declaration, or repeat it, never name another task."""
    own = getattr(cls, "name", "")
    if own and own != name:
        raise TaskDeclarationError(f"{where}: {cls.__name__}.name is {own!r}")


def _checked_format(fmt: Format, name: str, where: str) -> Format:
    label = f"{where}: format {getattr(fmt, 'name', '?')!r}"
    for field in ("name", "layout", "source"):
        if not str(getattr(fmt, field, "") or "").strip():
            raise TaskDeclarationError(f"{label}: no {field}")
    if not callable(fmt.parse):
        raise TaskDeclarationError(f"{label}: no loader (parse)")
    route = fmt.route
    if not _is_task(route):
        raise TaskDeclarationError(f"{label}: no route (a Task class)")
    missing = _missing(route, _ROUTE_PARTS)
    if missing:
        raise TaskDeclarationError(f"{label}: route {route.__name__} lacks {', '.join(missing)}")
    if fmt.kind != "folder" and not fmt.kind.startswith("."):
        raise TaskDeclarationError(f"{label}: kind is a file suffix or 'folder': {fmt.kind!r}")
    if fmt.task and fmt.task != name:
        raise TaskDeclarationError(f"{label}: it says task {fmt.task!r}")
    _name_free(route, name, where)
    return replace(fmt, task=name)


def all_tasks() -> list[BenchmarkTask]:
    return [TASKS.get(n) for n in sorted(TASKS.names(), key=natural_key)]


def task_names(*, generated: bool = False) -> list[str]:
    """Every task's name (`generated`: only those that make questions from the corpus)."""
    if not generated:
        return sorted(TASKS.names(), key=natural_key)
    return [t.name for t in all_tasks() if t.generated is not None]


def get(name: str) -> BenchmarkTask:
    return TASKS.get(name)


def get_task(name: str) -> Task:
    """The task over generated questions; an unknown task, or one that only reads published
    data, is one line."""
    return get(name).task()


def open_task(name: str, data: Path | None = None) -> Task:
    """The task a run asks: over its generated questions, or over the published `data` (read
    whole here, so a wrong file fails before anything else opens)."""
    if data is None:
        return get_task(name)
    return published_task(name, read_data(name, data))


def all_formats() -> list[Format]:
    return [f for t in all_tasks() for f in t.published]


def formats_for(task: str) -> list[Format]:
    return list(TASKS.get(task).published) if task in TASKS else []


def published_task(
    name: str, data: PublishedData | None = None, format_name: str | None = None
) -> Task:
    """The task `name` over published data: the route of the format `data` was read in. With
    `data` None (scoring stored rows): the route of the format named `format_name` (what the run
    recorded), else of the task's first format."""
    if data is not None:
        return data.format.route(data)
    decl = get(name)
    if not decl.published:
        raise RunError(f"task {name} reads no published format")
    fmt = next((f for f in decl.published if f.name == format_name), decl.published[0])
    return fmt.route(None)


def read_data(task: str, path: Path) -> PublishedData:
    """`path` parsed whole in the first of the task's formats that fits it, or one line: the
    field that is wrong, or, for a file of another task, which task it belongs to."""
    from playscout.eval.tasks.task import PublishedData

    path = Path(path)
    if not path.exists():
        raise DataFormatError(f"{path}: data file not found")
    own = list(get(task).published)  # an unknown task: one line naming the known ones
    if not own:
        raise DataFormatError(f"task {task} reads no published format")
    fitting = [f for f in own if f.fits(path)]
    first_error: DataFormatError | None = None
    for fmt in fitting:
        try:
            return PublishedData(path, fmt, fmt.parse(path))
        except NotRunnable:
            raise
        except DataFormatError as e:
            first_error = first_error or e
    other = _other_task(task, path)
    if other is not None:
        raise DataFormatError(
            f"{path.name} is a {other.task} file ({other.name}), not one {task} reads; "
            f"{task} reads {_expected(own)}"
        )
    if first_error is not None:
        raise first_error
    kind = "a folder" if path.is_dir() else f"a {path.suffix or 'suffix-less'} file"
    raise DataFormatError(f"{path.name} is {kind}; {task} reads {_expected(own)}")


def _expected(formats: list[Format]) -> str:
    runnable = [f for f in formats if f.runnable]
    return " or ".join(f"{f.name} ({'folder' if f.kind == 'folder' else f.kind})" for f in runnable)


def _other_task(task: str, path: Path) -> Format | None:
    """The format of another task this data parses as, if any (one wrong --task is common)."""
    for fmt in all_formats():
        if fmt.task == task or not fmt.fits(path):
            continue
        try:
            fmt.parse(path)
        except NotRunnable:
            return fmt
        except DataFormatError:
            continue
        return fmt
    return None
