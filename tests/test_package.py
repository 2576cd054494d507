"""The package as a user imports it: cheap to import, its entry points resolve, and the layer
rule holds (the same contract `make lint` checks with import-linter, asserted here too so a
plain `pytest` run catches an upward import)."""

from __future__ import annotations

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


def test_no_module_imports_a_higher_layer() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    [contract] = [c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    layers = contract["layers"][::-1]  # bottom first
    rank = {layer: i for i, layer in enumerate(layers)}

    def layer_of(module: str) -> str | None:
        return next((la for la in layers if module == la or module.startswith(la + ".")), None)

    graph = grimp.build_graph("playscout")
    upward = []
    for module in graph.modules:
        own = layer_of(module)
        if own is None:
            continue
        for imported in graph.find_modules_directly_imported_by(module):
            other = layer_of(imported)
            if other is not None and rank[other] > rank[own]:
                upward.append(f"{module} -> {imported}")
    assert not upward, upward
    unplaced = {m.split(".")[1] for m in graph.modules if m.count(".") >= 1 and not layer_of(m)}
    assert unplaced <= {"__main__", "_torchvision_hook"}, unplaced


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
