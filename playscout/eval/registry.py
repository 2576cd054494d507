"""Benchmark tasks, each one declaration (`declare`): its name, its metric and its sources (the
questions it generates from the synthetic corpus, and each published format with the loader
that reads it and the route that asks its items), registered in the module that writes the
task. `TASKS`'s table lists every built-in task and the module attribute its declaration is
kept in; a task's module is imported on its first lookup, so `import playscout` and `playscout
--help` import none of them. A declaration missing a part, or a second task of the same name,
fails at registration with one line."""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from playscout.eval.errors import RunError
from playscout.registry import Registry, natural_key

if TYPE_CHECKING:
    from playscout.eval.published.formats import Format
    from playscout.eval.tasks.task import Task

_NAME = re.compile(r"[a-z][a-z0-9_]*")
# What the runner, preflight and report read of a generated task (eval/tasks/task.py, Task).
_TASK_PARTS = ("description", "needs_index", "judged", "calls", "load", "route", "score")


class TaskDeclarationError(RunError):
    """A task declared with a part missing or wrong, or a second time: a bug in its module."""

    user_error = False


@dataclass(frozen=True)
class BenchmarkTask:
    """One task: `generated` asks questions made from the synthetic corpus (a Task class,
    eval/tasks/task.py), `published` reads the released files (each Format names its loader,
    `parse`, and its route, a PublishedTask class)."""

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

    def routes(self) -> list[type[Any]]:
        """The published route classes, each once, in the order of their formats."""
        return list(dict.fromkeys(f.route for f in self.published))


_PUBLISHED = "playscout.eval.published"
TASKS: Registry[BenchmarkTask] = Registry(
    "task",
    {
        "gameplayqa": f"{_PUBLISHED}.external_tasks:GAMEPLAYQA",
        "lcric": f"{_PUBLISHED}.external_tasks:LCRIC",
        "plain": "playscout.eval.tasks.plain:PLAIN",
        "starbench": f"{_PUBLISHED}.external_tasks:STARBENCH",
        "t1": f"{_PUBLISHED}.clip_tasks:T1",
        "t2": f"{_PUBLISHED}.clip_tasks:T2",
        "t3": f"{_PUBLISHED}.clip_tasks:T3",
        "t4": f"{_PUBLISHED}.game_tasks:T4",
        "t5": f"{_PUBLISHED}.clip_tasks:T5",
        "t6": f"{_PUBLISHED}.game_tasks:T6",
        "t7": f"{_PUBLISHED}.game_tasks:T7",
        "t8": f"{_PUBLISHED}.clip_tasks:T8",
        "t9": f"{_PUBLISHED}.game_tasks:T9",
    },
    unknown=RunError,
)
"""Every task by name: the built-ins (each module keeps its `declare(...)` in the attribute
named here), then any declared elsewhere (a plugin, a test)."""


def declare(
    name: str,
    *,
    metric: str,
    generated: type[Any] | None = None,
    published: tuple[Format, ...] = (),
) -> BenchmarkTask:
    """Register the task `name` (call it at module level, where the task is written). The
    route classes take `name` when they do not set one; one that names another task fails."""
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
        missing = [p for p in _TASK_PARTS if not hasattr(generated, p)]
        if missing:
            raise TaskDeclarationError(
                f"{where}: generated {generated.__name__} lacks {', '.join(missing)}"
            )
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


def _name_free(cls: type[Any], name: str, where: str) -> None:
    """A class may leave its name to the declaration, or repeat it, never name another task."""
    own = getattr(cls, "name", "")
    if own and own != name:
        raise TaskDeclarationError(f"{where}: {cls.__name__}.name is {own!r}")


def _checked_format(fmt: Format, name: str, where: str) -> Format:
    from playscout.eval.published.task import PublishedTask

    label = f"{where}: format {getattr(fmt, 'name', '?')!r}"
    for field in ("name", "layout", "source"):
        if not str(getattr(fmt, field, "") or "").strip():
            raise TaskDeclarationError(f"{label}: no {field}")
    if not callable(fmt.parse):
        raise TaskDeclarationError(f"{label}: no loader (parse)")
    route = fmt.route
    if not (isinstance(route, type) and issubclass(route, PublishedTask)):
        raise TaskDeclarationError(f"{label}: no route (a PublishedTask class)")
    for method in ("route", "score"):
        if getattr(route, method) is getattr(PublishedTask, method):
            raise TaskDeclarationError(f"{label}: route {route.__name__} lacks {method}")
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


def all_formats() -> list[Format]:
    return [f for t in all_tasks() for f in t.published]


def formats_for(task: str) -> list[Format]:
    return list(TASKS.get(task).published) if task in TASKS else []
