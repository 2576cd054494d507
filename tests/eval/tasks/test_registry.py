"""The task registry (playscout/eval/tasks/registry.py): every declared task is whole and
listed, the docs tables are the generated ones, a declaration missing a part fails at
registration in one line, and a new task is one new module plus its line in the table, listed
and run through the same runner path."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import playscout.eval.tasks as tasks_pkg
from playscout.cli.main import app
from playscout.config import EvalSettings, Settings
from playscout.eval import RunSpec, run_eval
from playscout.eval.errors import RunError
from playscout.eval.results.report import summarise_run
from playscout.eval.storage.store import load_results
from playscout.eval.tasks import registry
from playscout.eval.tasks.listing import with_tables
from playscout.eval.tasks.registry import TaskDeclarationError, all_tasks, declare
from playscout.eval.tasks.t9 import T9Task
from playscout.eval.tasks.task import Format, Task
from playscout.registry import Registry, RegistryError

ROOT = Path(__file__).parents[3]
runner = CliRunner()


def test_every_task_is_whole_and_listed() -> None:
    listed = runner.invoke(app, ["eval", "tasks"])
    assert listed.exit_code == 0, listed.output
    heads = {line.split("  ")[0] for line in listed.output.splitlines() if line[:1].strip()}
    tasks = all_tasks()
    assert len(tasks) >= 12 and heads == {t.name for t in tasks}
    for t in tasks:
        assert t.metric.strip() and f"{t.name}  " in listed.output, t.name
        assert t.generated is not None or t.published, f"{t.name}: no source"
        if t.generated is not None:
            task = t.task()
            assert isinstance(task, Task), t.name
            assert task.name == t.name and task.description.strip(), t.name
            for part in ("questions", "route", "score"):
                assert getattr(type(task), part) is not getattr(Task, part), (t.name, part)
        for fmt in t.published:
            assert fmt.task == t.name and callable(fmt.parse), (t.name, fmt.name)
            route = fmt.route
            assert issubclass(route, Task) and route.name == t.name, (t.name, fmt.name)
            assert route.route is not Task.route, (t.name, fmt.name)
            assert route.score is not Task.score, (t.name, fmt.name)
            assert f"    {fmt.name} (" in listed.output, (t.name, fmt.name)


def test_help_imports_no_task_module() -> None:
    """A task's module is imported on its first lookup; the help imports none of them."""
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from playscout.cli.main import app\n"
        "assert CliRunner().invoke(app, ['--help']).exit_code == 0\n"
        "print([m for m in sys.modules if m.startswith('playscout.eval.tasks')])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_docs_tables_are_the_generated_ones() -> None:
    doc = (ROOT / "docs" / "published-data.md").read_text()
    assert with_tables(doc) == doc, "run scripts/task_tables.py (the task declarations changed)"


# ---------------------------------------------------------------- failing loudly


def _tasks(extra: dict[str, str] | None = None) -> Registry[Any]:
    """A registry of the built-in tasks (their declarations as imported), plus `extra` lines."""
    return Registry("task", {**registry.TASKS.builtins, **(extra or {})}, unknown=RunError)


@pytest.fixture
def fresh_registry(monkeypatch: pytest.MonkeyPatch) -> Registry[Any]:
    """The declared tasks, in a copy a test may add to."""
    copy = _tasks()
    copy.values()
    monkeypatch.setattr(registry, "TASKS", copy)
    return copy


class _Route(Task):
    async def route(self, inst: Any, env: Any, trajectory: Path) -> Any:
        raise NotImplementedError

    def score(self, records: list[Any]) -> dict[str, Any]:
        return {}


class _NoScore(Task):
    async def route(self, inst: Any, env: Any, trajectory: Path) -> Any:
        raise NotImplementedError


class _Generated(Task):
    description, needs_index = "a task", False

    def questions(self, *a: Any) -> list[Any]:
        return []

    async def route(self, *a: Any) -> Any: ...

    def score(self, records: list[Any]) -> dict[str, Any]:
        return {}


class _NoQuestions(Task):
    name = "broken"
    description, needs_index = "a task", False

    async def route(self, *a: Any) -> Any: ...

    def score(self, records: list[Any]) -> dict[str, Any]:
        return {}


class _NotATask:
    """A class with every part, but not a Task."""

    description, needs_index, judged, calls = "a task", False, False, frozenset[str]()

    def questions(self, *a: Any) -> list[Any]:
        return []

    async def route(self, *a: Any) -> Any: ...

    def score(self, records: list[Any]) -> dict[str, Any]:
        return {}


def _fmt(**change: Any) -> Format:
    """A whole format (its route a fresh class, which the declaration names), then `change`."""
    route = type("Route", (_Route,), {})
    whole = {
        "name": "F",
        "layout": "[{id}]",
        "source": "here",
        "parse": lambda p: [],
        "route": route,
    }
    return Format(**whole | change)


@pytest.mark.parametrize(
    ("name", "kwargs", "says"),
    [
        ("broken", {"metric": "", "generated": _Generated}, "no metric"),
        ("broken", {"metric": "m"}, "no source"),
        ("broken", {"metric": "m", "generated": _NoQuestions}, "lacks questions"),
        ("broken", {"metric": "m", "generated": _NotATask}, "is not a Task class"),
        ("broken", {"metric": "m", "published": (_fmt(parse=None),)}, "no loader"),
        ("broken", {"metric": "m", "published": (_fmt(route=None),)}, "no route"),
        ("broken", {"metric": "m", "published": (_fmt(route=_NoScore),)}, "lacks score"),
        ("broken", {"metric": "m", "published": (_fmt(source=""),)}, "no source"),
        ("broken", {"metric": "m", "published": (_fmt(kind="json"),)}, "kind"),
        ("broken", {"metric": "m", "published": (_fmt(), _fmt())}, "share a name"),
        ("broken", {"metric": "m", "generated": T9Task}, "T9Task.name is 't9'"),
        ("Broken task", {"metric": "m", "generated": _Generated}, "lower-case"),
        ("t9", {"metric": "m", "generated": _Generated}, "is already registered"),
    ],
)
def test_a_declaration_missing_a_part_fails_in_one_line(
    fresh_registry: Registry[Any], name: str, kwargs: dict[str, Any], says: str
) -> None:
    before = fresh_registry.items()
    with pytest.raises((TaskDeclarationError, RegistryError)) as err:
        declare(name, **kwargs)
    message = str(err.value)
    assert says in message and repr(name) in message and "\n" not in message
    assert fresh_registry.items() == before  # nothing half-registered, no class renamed
    routes = [f.route for f in kwargs.get("published", ()) if isinstance(f.route, type)]
    assert all(r.name == "" for r in routes if r is not _NoScore)


def test_a_task_of_no_source_kind_is_refused_where_it_is_asked_for(
    fresh_registry: Registry[Any],
) -> None:
    from playscout.eval.tasks.registry import get_task

    declare("files_only", metric="m", published=(_fmt(),))
    with pytest.raises(RunError, match="task files_only has no generated questions: run it on"):
        get_task("files_only")
    with pytest.raises(RunError, match=r"^unknown task 'nope'; known: .*t9$"):
        get_task("nope")


# ------------------------------------------------ a new task is one new module and its table line

TOY = '''
"""A toy task: one module and its line in the table, nothing else edited."""

import json
from collections import Counter

from playscout.eval.storage.records import Outcome
from playscout.eval.tasks.registry import declare
from playscout.eval.tasks.task import Format, Instance, Task


class ToyTask(Task):
    description = "Echo each question's number, from nothing."
    needs_index = False

    def questions(self, env, sports, limit):
        return [Instance(f"toy_{i}", s, f"say {i}", str(i)) for s in sports for i in range(limit or 2)]

    async def route(self, inst, env, trajectory):
        answer = inst.prompt.split()[-1]
        return Outcome(answer=answer, status="answered", correct=answer == inst.gold)

    def score(self, records):
        return {"accuracy": sum(bool(r.correct) for r in records) / len(records)}


def toy_items(path):
    return [Instance(e["id"], "basketball", f"say {e['n']}", str(e["n"])) for e in json.loads(path.read_text())]


class ToyPublished(Task):
    description = "Echo each listed number."

    async def route(self, inst, env, trajectory):
        return await ToyTask().route(inst, env, trajectory)

    def score(self, records):
        return {"statuses": dict(Counter(r.status for r in records)), **ToyTask().score(records)}


TOY = declare(
    "toy",
    metric="echo accuracy",
    generated=ToyTask,
    published=(Format("Toy list", "[{id, n}]", "this module", toy_items, ToyPublished, example="toy.json"),),
)
'''


@pytest.fixture
def toy_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """`toy_task.py`, a module of playscout.eval.tasks (in a folder of the package's path),
    named by one more line of the table, in a copy of the registry."""
    folder = tmp_path / "pkg"
    folder.mkdir()
    (folder / "toy_task.py").write_text(textwrap.dedent(TOY))
    module = "playscout.eval.tasks.toy_task"
    monkeypatch.setattr(registry, "TASKS", _tasks({"toy": f"{module}:TOY"}))
    monkeypatch.setattr(tasks_pkg, "__path__", [*tasks_pkg.__path__, str(folder)])
    yield module
    sys.modules.pop(module, None)


def test_a_new_task_is_one_module_listed_and_run(toy_module: str, tmp_path: Path) -> None:
    listed = runner.invoke(app, ["eval", "tasks"])
    assert listed.exit_code == 0, listed.output
    assert "toy  Echo each question's number, from nothing." in listed.output
    assert (
        "  metric: echo accuracy" in listed.output and "    Toy list (.json file)" in listed.output
    )
    table = runner.invoke(app, ["eval", "tasks", "--markdown"]).output
    assert "| toy | echo accuracy |" in table and "| toy | toy.json | Toy list |" in table

    settings = Settings(eval=EvalSettings(cache_db=None))
    spec = RunSpec(
        task="toy", sports=("hockey",), policy="workflow", out_dir=tmp_path / "gen", limit=3
    )
    summary = run_eval(spec, settings)
    assert summary.statuses == {"answered": 3}
    assert summarise_run(tmp_path / "gen")["task_metrics"] == {"accuracy": 1.0}

    data = tmp_path / "toy.json"
    data.write_text(json.dumps([{"id": "a", "n": 4}, {"id": "b", "n": 5}]))
    out = tmp_path / "pub"
    args = ["eval", "run", "--task", "toy", "--policy", "workflow", "--no-cache"]
    ran = runner.invoke(app, [*args, "--data", str(data), "--out", str(out)])
    assert ran.exit_code == 0, ran.output
    assert sorted(r.answer or "" for r in load_results(out)) == ["4", "5"]
    metrics = summarise_run(out)["task_metrics"]
    assert metrics == {"statuses": {"answered": 2}, "accuracy": 1.0}
