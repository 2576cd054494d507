"""The Makefile's installs, run by real `make` on a copy of it with pip replaced by `echo`:
`make demo` installs only what the demo needs and says what and how long first; `make
install` (what `make test` and CI run) installs every extra; the stamps let `make demo` then
`make test` on one clone install the rest, and a full install serve the demo."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")


def make(where: Path, *targets: str) -> list[str]:
    """`make TARGET` with pip as `echo pip`; the lines it printed."""
    done = subprocess.run(["make", "-s", *targets, "PIP=echo pip"], cwd=where,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    for name in ("Makefile", "pyproject.toml", "constraints.txt"):
        shutil.copy(ROOT / name, tmp_path / name)
    python = tmp_path / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("#!/bin/sh\nexit 0\n")  # a venv is there: make creates none
    python.chmod(0o755)
    return tmp_path


def pip_lines(lines: list[str]) -> list[str]:
    return [x for x in lines if x.startswith("pip ")]


def test_the_demo_installs_only_what_it_needs_and_says_so_first(clone: Path) -> None:
    lines = make(clone, "install-demo")
    assert lines[0] == "installing playscout with what the demo needs (embed) into .venv:"
    assert lines[1].startswith("  about 1.8 GB, 3-4 minutes;")
    assert pip_lines(lines) == ["pip -e .[embed]"] and lines[-1].startswith("installed in ")
    assert make(clone, "install-demo") == []  # done once
    demo = subprocess.run(["make", "-n", "demo"], cwd=clone, capture_output=True, text=True)
    assert "-m playscout demo --out var/demo" in demo.stdout and "[embed," not in demo.stdout


def test_demo_then_test_installs_every_extra_and_a_full_install_serves_the_demo(
    clone: Path,
) -> None:
    make(clone, "install-demo")
    full = make(clone, "install")  # what `make test` (and CI's fresh clone) runs first
    assert full[0].startswith("installing playscout with every extra (embed,bge,perception,")
    assert full[1].startswith("  about 3.2 GB, 5-6 minutes (2 on top of make demo's install);")
    [pip] = pip_lines(full)
    assert pip.startswith("pip -e .[embed,") and "dev" in pip and "perception" in pip
    assert make(clone, "install") == []
    assert make(clone, "install-demo") == []  # the full install has what the demo needs
    (clone / "pyproject.toml").write_text((clone / "pyproject.toml").read_text() + "\n# new\n")
    assert pip_lines(make(clone, "install-demo")) == ["pip -e .[embed]"]  # a changed project
    assert len(pip_lines(make(clone, "install"))) == 1
