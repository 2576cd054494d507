"""Benchmark tasks, each one declaration (`declare`): its name, its metric and its sources (the
questions it generates from the synthetic corpus, and each published format with the loader
that reads it and the route that asks its items), registered in the module that writes the
task. No list names the tasks: the first lookup imports every module of eval/tasks and
eval/published (`PACKAGES`), so a new task is one new module there; `import playscout` and
`playscout --help` import none of them. A declaration missing a part, or a second task of the
same name, fails at registration with one line."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from playscout.eval.errors import RunError

if TYPE_CHECKING:
    from playscout.eval.published.formats import Format
    from playscout.eval.tasks.task import Task

PACKAGES = ("playscout.eval.tasks", "playscout.eval.published")
"""Where task declarations are looked for: every module of these packages is imported once."""

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


_DECLARED: dict[str, BenchmarkTask] = {}
_discovered = False


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
    prior = _DECLARED.get(name)
    if prior is not None and prior.module != module:
        raise TaskDeclarationError(f"task {name!r} declared twice: {prior.module} and {module}")
    for cls in [generated, *(f.route for f in formats)]:  # checked: nothing fails from here
        if cls is not None and not getattr(cls, "name", ""):
            cls.name = name
    decl = BenchmarkTask(name, metric.strip(), generated, formats, module)
    _DECLARED[name] = decl
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


def _discover() -> None:
    """Import every module of PACKAGES once (each declares its tasks as it is imported)."""
    global _discovered
    if _discovered:
        return
    for package in PACKAGES:
        pkg = importlib.import_module(package)
        for info in pkgutil.iter_modules(pkg.__path__):
            importlib.import_module(f"{package}.{info.name}")
    _discovered = True


def _key(name: str) -> list[Any]:
    """Alphabetical, numbers by value (t2 before t10)."""
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name)]


def all_tasks() -> list[BenchmarkTask]:
    _discover()
    return [_DECLARED[n] for n in sorted(_DECLARED, key=_key)]


def task_names(*, generated: bool = False) -> list[str]:
    """Every task's name (`generated`: only those that make questions from the corpus)."""
    return [t.name for t in all_tasks() if t.generated is not None or not generated]


def get(name: str) -> BenchmarkTask:
    _discover()
    if name not in _DECLARED:
        raise RunError(f"unknown task {name!r}; one of: {', '.join(task_names())}")
    return _DECLARED[name]


def all_formats() -> list[Format]:
    return [f for t in all_tasks() for f in t.published]


def formats_for(task: str) -> list[Format]:
    _discover()
    decl = _DECLARED.get(task)
    return list(decl.published) if decl else []
