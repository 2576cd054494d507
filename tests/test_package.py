"""The package as a user imports it: cheap to import, its entry points resolve, and the layer
rule holds (the same contract `make lint` checks with import-linter, asserted here too so a
plain `pytest` run catches an upward import)."""

from __future__ import annotations

import ast
import importlib.metadata
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import grimp

import playscout

ROOT = Path(__file__).resolve().parents[1]


def test_import_is_cheap_and_entry_points_resolve() -> None:
    code = (
        "import sys, playscout\n"
        "heavy = ('torch', 'fastapi', 'langgraph', 'tantivy', 'opentelemetry', 'prometheus_client')\n"
        "heavy = [m for m in heavy if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "for name in playscout.__all__: getattr(playscout, name)\n"
        "print(sorted(playscout.__all__))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "Runtime" in out.stdout and "open_backend" in out.stdout and "run_eval" in out.stdout


def test_unknown_attribute_is_an_attribute_error() -> None:
    try:
        playscout.NoSuchThing  # noqa: B018
    except AttributeError as e:
        assert "NoSuchThing" in str(e)
    else:
        raise AssertionError("expected AttributeError")


def _upward_imports(graph: grimp.ImportGraph, layers: list[str]) -> list[str]:
    """Imports from a module of one layer (`layers` bottom first) into a higher one."""
    rank = {layer: i for i, layer in enumerate(layers)}

    def layer_of(module: str) -> str | None:
        return next((la for la in layers if module == la or module.startswith(la + ".")), None)

    upward = []
    for module in graph.modules:
        own = layer_of(module)
        if own is None:
            continue
        for imported in graph.find_modules_directly_imported_by(module):
            other = layer_of(imported)
            if other is not None and rank[other] > rank[own]:
                upward.append(f"{module} -> {imported}")
    return upward


def test_no_module_imports_a_higher_layer() -> None:
    """Every `layers` contract: the package's, and those inside a package (`containers`: eval's
    storage, judging, tasks, running, results), where no module may sit outside the layers."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = [c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    assert any("containers" in c for c in contracts), "eval's layers contract is gone"
    graph = grimp.build_graph("playscout")
    for contract in contracts:
        containers = contract.get("containers", [""])
        for container in containers:
            prefix = f"{container}." if container else ""
            layers = [prefix + la for la in contract["layers"][::-1]]  # bottom first
            assert not _upward_imports(graph, layers), (container, _upward_imports(graph, layers))
            if container:
                children = {m for m in graph.find_children(container)}
                assert children <= set(layers), sorted(children - set(layers))
    [package] = [c for c in contracts if "containers" not in c]
    placed = tuple(package["layers"])
    unplaced = {
        m.split(".")[1]
        for m in graph.modules
        if m.count(".") >= 1 and not any(m == la or m.startswith(la + ".") for la in placed)
    }
    assert unplaced <= {"__main__", "_torchvision_hook"}, unplaced


def test_no_import_cycle() -> None:
    """No module imports itself around a circle (lazy and type-checking imports count): the
    last one, eval's published formats <-> task <-> registry, was cut when eval got its layers.
    `make lint` checks the same inside eval (the `acyclic_siblings` contract)."""
    graph = grimp.build_graph("playscout")
    circles = []
    for module in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            back = graph.find_shortest_chain(importer=imported, imported=module)
            if back is not None:
                circles.append(" -> ".join([module, *back]))
    assert not circles, circles[:5]


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _declared() -> set[str]:
    """Every distribution pyproject names, in the base dependencies or any extra."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    specs = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        specs += extra
    return {_normalise(re.split(r"[\[<>=!~; ]", spec, maxsplit=1)[0]) for spec in specs}


def _third_party_imports() -> dict[str, str]:
    """Top-level module -> one file importing it, for every import in the package (lazy ones
    inside functions included) that is neither the standard library nor playscout."""
    found: dict[str, str] = {}
    for path in sorted((ROOT / "playscout").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in ("playscout", "__future__"):
                    found.setdefault(top, str(path.relative_to(ROOT)))
    return found


def test_every_imported_package_is_declared() -> None:
    """A package the code imports but pyproject does not name works here only by accident (it
    came with something else) and breaks a clean install (issue 14: scipy, tokenizers, json5)."""
    declared = _declared()
    owners = importlib.metadata.packages_distributions()
    missing = []
    for module, where in _third_party_imports().items():
        dists = {_normalise(d) for d in owners.get(module, [])}
        if not dists & declared:
            missing.append(
                f"{module} ({where}; provided by {sorted(dists) or 'nothing installed'})"
            )
    assert not missing, missing


def test_pyproject_has_no_exact_pins() -> None:
    """Lower bounds in pyproject; the tested versions are pinned in constraints.txt only."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    specs = list(project["dependencies"]) + [
        s for extra in project["optional-dependencies"].values() for s in extra
    ]
    assert not [s for s in specs if "==" in s]


def test_agent_and_runtime_work_without_the_telemetry_extra() -> None:
    """With OpenTelemetry uninstalled (imports of it fail), the agent layer and the runtime
    import, tracing is off by default, and configuring it names the extra to install."""
    code = (
        "import sys, importlib.abc\n"
        "class NoOtel(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'opentelemetry':\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, NoOtel())\n"
        "import playscout.agent, playscout.runtime\n"
        "from playscout.agent.tracing import TelemetryUnavailable, otlp_tracer\n"
        "from playscout.config import TelemetrySettings\n"
        "assert otlp_tracer(TelemetrySettings()) is None\n"
        "try:\n"
        "    otlp_tracer(TelemetrySettings(otlp_endpoint='http://127.0.0.1:4318/v1/traces'))\n"
        "except TelemetryUnavailable as e:\n"
        "    print(e)\n"
        "assert not [m for m in sys.modules if m.startswith('opentelemetry')]\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install 'playscout[telemetry]'" in out.stdout


def test_an_elasticsearch_index_without_the_elastic_extra_names_it() -> None:
    """Was: a ModuleNotFoundError traceback from a base install given an index URL."""
    code = (
        "import sys, importlib.abc\n"
        "class NoElastic(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('elasticsearch', 'elastic_transport'):\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, NoElastic())\n"
        "sys.argv = ['playscout', 'search', 'documents', 'goal', '--index', 'http://127.0.0.1:9/x']\n"
        "from playscout.cli import app\n"
        "app()\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip() == (
        "error: an Elasticsearch index needs the elasticsearch client: "
        "pip install 'playscout[elastic]'"
    )


def test_openmp_threads_wait_passively_unless_the_user_says_otherwise() -> None:
    """Spinning OpenMP threads cost a loaded 2-core machine a third more CPU (playscout/__init__.py)."""
    code = "import os, playscout; print(os.environ['OMP_WAIT_POLICY'])"
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    run = [sys.executable, "-c", code]
    assert subprocess.run(run, capture_output=True, text=True, env=env).stdout.strip() == "PASSIVE"
    env["OMP_WAIT_POLICY"] = "ACTIVE"
    assert subprocess.run(run, capture_output=True, text=True, env=env).stdout.strip() == "ACTIVE"
