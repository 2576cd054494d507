"""The one registry (playscout/registry.py) every kind of named thing uses, and the tables of
built-ins: each lists every built-in of its kind, so a thing declared half-way (a module that
no table names) fails here."""

from __future__ import annotations

import importlib
import os
import pkgutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from playscout.errors import PlayscoutError, is_user_error
from playscout.registry import Registry, RegistryError, UnknownName


class Lost(PlayscoutError, ValueError):
    pass


@pytest.fixture
def modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder on sys.path for throwaway modules (removed from sys.modules afterwards)."""
    monkeypatch.syspath_prepend(str(tmp_path))
    before = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - before:
        if name.startswith("reg_"):
            del sys.modules[name]


def _module(folder: Path, name: str, code: str) -> None:
    (folder / f"{name}.py").write_text(textwrap.dedent(code))
    importlib.invalidate_caches()


def test_add_get_names_and_one_unknown_line() -> None:
    reg: Registry[int] = Registry("colour", unknown=Lost)
    assert reg.add("red", 1) == 1 and reg.add("blue", 2) == 2
    assert reg.get("red") == 1 and reg["blue"] == 2
    assert reg.names() == ("red", "blue") and list(reg) == ["red", "blue"] and len(reg) == 2
    assert "red" in reg and "green" not in reg and 3 not in reg
    with pytest.raises(Lost, match=r"^unknown colour 'green'; known: blue, red$"):
        reg.get("green")
    plain: Registry[int] = Registry("thing")
    with pytest.raises(UnknownName, match=r"^unknown thing 'x'; known: none$") as err:
        plain.get("x")
    assert is_user_error(err.value)


def test_known_names_are_listed_numbers_by_value() -> None:
    reg: Registry[str] = Registry("task")
    for name in ("t10", "t2", "t1", "gameplayqa"):
        reg.add(name, name)
    with pytest.raises(UnknownName, match=r"; known: gameplayqa, t1, t2, t10$"):
        reg.get("t3")


def test_the_same_entry_again_is_a_no_op_and_another_is_refused() -> None:
    reg: Registry[tuple[str, int]] = Registry("sport")
    first = ("quarter", 4)
    reg.add("basketball", first)
    assert reg.add("basketball", first) is first
    assert reg.add("basketball", ("quarter", 4)) is first  # equal is the same
    with pytest.raises(RegistryError, match=r"^sport 'basketball' is already registered") as err:
        reg.add("basketball", ("half", 2))
    assert reg.get("basketball") is first and not is_user_error(err.value)


def test_remove_forgets_an_added_entry_never_a_builtin(modules: Path) -> None:
    _module(modules, "reg_colours", "RED = 'red'\n")
    reg: Registry[str] = Registry("colour", {"red": "reg_colours:RED"})
    reg.add("blue", "blue")
    reg.remove("blue")
    assert reg.names() == ("red",)
    with pytest.raises(RegistryError, match=r"^colour 'red' is a built-in"):
        reg.remove("red")


def test_builtins_are_listed_without_import_and_imported_on_first_use(modules: Path) -> None:
    _module(modules, "reg_lazy", "import sys\nsys.modules[__name__].loads = 1\nRED = ('red',)\n")
    reg: Registry[tuple[str]] = Registry("colour", {"red": "reg_lazy:RED"})
    reg.add("blue", ("blue",))
    assert reg.names() == ("red", "blue") and "red" in reg
    assert "reg_lazy" not in sys.modules
    assert reg.get("red") == ("red",) and "reg_lazy" in sys.modules
    assert reg.get("red") is sys.modules["reg_lazy"].RED
    assert reg.items() == [("red", ("red",)), ("blue", ("blue",))]


def test_a_module_that_registers_itself_is_loaded_through_the_table(
    modules: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The `@tool` style: importing the module adds its entries (both of its names, though the
    table's attribute, the function, is not the entry itself)."""
    reg: Registry[str] = Registry(
        "tool", {"add": "reg_tools:add", "sub": "reg_tools:sub"}, unknown=Lost
    )
    monkeypatch.setitem(sys.modules, "reg_host", type(sys)("reg_host"))
    sys.modules["reg_host"].REG = reg  # type: ignore[attr-defined]
    _module(
        modules,
        "reg_tools",
        """
        from reg_host import REG

        def declare(fn):
            REG.add(fn.__name__, f"tool {fn.__name__}")
            return fn

        @declare
        def add(a, b):
            return a + b

        @declare
        def sub(a, b):
            return a - b
        """,
    )
    assert reg.get("sub") == "tool sub"  # not the function: what the import registered
    assert reg.get("add") == "tool add"
    with pytest.raises(RegistryError, match=r"^tool 'add' is already registered"):
        reg.add("add", "another add")


def test_a_builtin_name_is_taken_by_the_builtin(modules: Path) -> None:
    """Another entry under a built-in's name loads the built-in first, then is refused."""
    _module(modules, "reg_kinds", "EMBEDDED = 'embedded'\n")
    reg: Registry[str] = Registry("backend kind", {"embedded": "reg_kinds:EMBEDDED"})
    with pytest.raises(RegistryError, match=r"^backend kind 'embedded' is already registered"):
        reg.add("embedded", "an impostor")
    assert reg.add("embedded", "embedded") == "embedded" and reg.get("embedded") == "embedded"


def test_a_table_line_that_does_not_load_is_one_line(modules: Path) -> None:
    _module(modules, "reg_typo", "REC = 1\n")
    reg: Registry[int] = Registry("sport", {"curling": "reg_typo:RECORD"})
    with pytest.raises(RegistryError, match=r"^sport 'curling': reg_typo has no RECORD"):
        reg.get("curling")
    with pytest.raises(RegistryError, match="is not 'module:attr'"):
        Registry("sport", {"curling": "reg_typo.RECORD"})


def test_check_refuses_a_malformed_entry_added_or_loaded(modules: Path) -> None:
    def named(name: str, entry: str) -> None:
        if entry != name:
            raise RegistryError(f"{name!r} holds {entry!r}")

    _module(modules, "reg_checked", "GOOD = 'good'\nBAD = 'worse'\n")
    reg: Registry[str] = Registry(
        "thing", {"good": "reg_checked:GOOD", "bad": "reg_checked:BAD"}, check=named
    )
    assert reg.get("good") == "good"
    with pytest.raises(RegistryError, match="'bad' holds 'worse'"):
        reg.get("bad")
    with pytest.raises(RegistryError, match="'odd' holds 'even'"):
        reg.add("odd", "even")
    assert "odd" not in reg


# ---------------------------------------------------------------- the tables of built-ins


def _import_all(package: str) -> None:
    pkg = importlib.import_module(package)
    for info in pkgutil.walk_packages(pkg.__path__, f"{package}."):
        importlib.import_module(info.name)


def test_the_sport_table_lists_every_sport_module() -> None:
    from playscout.corpus import sports

    modules = {i.name for i in pkgutil.iter_modules(sports.__path__)} - {"record"}
    assert set(sports.SPORTS.builtins) == modules
    for name in modules:
        assert sports.sport(name).name == name


def test_the_generator_table_lists_every_generator_package() -> None:
    from playscout.synthetic import sports

    packages = {i.name for i in pkgutil.iter_modules(sports.__path__)}
    assert set(sports.SPECS.builtins) == packages
    assert [sports.sport_spec(n).name for n in sorted(packages)] == sorted(packages)


def test_the_tool_table_lists_every_declared_tool() -> None:
    """A tool declared in a module the table does not name is caught here."""
    from playscout.tools.declare import TOOLS

    _import_all("playscout.tools")
    assert TOOLS.names() == tuple(TOOLS.builtins)


def test_the_task_table_lists_every_declared_task() -> None:
    from playscout.eval.tasks.registry import TASKS

    _import_all("playscout.eval.tasks")
    assert TASKS.names() == tuple(TASKS.builtins)


def test_the_kind_table_lists_every_backend_kind() -> None:
    from playscout.search.kind import BackendKind
    from playscout.search.kinds import KINDS, builtin_kinds

    defined = set()
    for info in pkgutil.iter_modules(importlib.import_module("playscout.search").__path__):
        module = importlib.import_module(f"playscout.search.{info.name}")
        defined |= {v.name for v in vars(module).values() if isinstance(v, BackendKind)}
    assert defined == set(KINDS.builtins) == {k.name for k in builtin_kinds()}


def test_the_embedder_table_builds_and_spells_every_kind() -> None:
    from playscout.embed.factory import CLI_FORMS, EMBEDDERS, IMAGE_KINDS, QUERY_KINDS

    assert set(CLI_FORMS) | {"precomputed"} | QUERY_KINDS == set(EMBEDDERS.builtins) >= IMAGE_KINDS
    assert not QUERY_KINDS & set(CLI_FORMS)
    for name, cls in EMBEDDERS.items():
        assert isinstance(cls, type), name
    for kind, form in CLI_FORMS.items():
        assert form.split(":")[0] == kind


def test_help_lists_kinds_and_embedders_from_the_tables() -> None:
    """`index build --help` shows what the tables hold, and building the help imports no
    backend, no embedder and not numpy."""
    code = (
        "import sys\n"
        "from playscout.cli.main import app\n"
        "from typer.testing import CliRunner\n"
        "out = CliRunner().invoke(app, ['index', 'build', '--help']).output\n"
        "print(sorted(m for m in sys.modules if m.startswith(('numpy', 'playscout.embed.', "
        "'playscout.search.'))))\n"
        "print(' '.join(out.split()))\n"
    )
    wide = {**os.environ, "COLUMNS": "400"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=wide
    )
    loaded, help_text = done.stdout.splitlines()
    assert eval(loaded) == [  # our own printout
        "playscout.embed.errors",
        "playscout.embed.factory",
        "playscout.search.backend_api",
        "playscout.search.kinds",
    ]
    from playscout.search.kinds import KINDS

    kinds = " | ".join(["auto (the kind --out names)", *KINDS.builtins])
    assert kinds in help_text and "| embedded | elasticsearch" in kinds
    assert "minilm | bge-m3:DIR | openai:URL#MODEL | none" in help_text
    plugin = (
        "import dataclasses\n"
        "from playscout.search.embedded_kind import EMBEDDED\n"
        "from playscout.search.kinds import register_kind\n"
        "register_kind(dataclasses.replace(EMBEDDED, name='toy'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", plugin + code], capture_output=True, text=True, check=True, env=wide
    )
    assert f"{kinds} | toy" in done.stdout
