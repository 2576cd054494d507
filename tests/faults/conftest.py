"""What the fault tests share: a 30-game corpus (the size the faults were first found at), a
BM25-only index of it (builds in seconds, so a build can be killed at chosen points), the CLI
as a subprocess, and size-limited tmpfs mounts for disk-full and read-only faults.

Each fault is real: SIGKILL of a real process, real file bytes changed, a real file system that
runs out of space. Nothing here mocks the fault.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from playscout.search.embedded.build import BuildSummary
from tests.serving.conftest import app_factory  # noqa: F401  (the fixture, for the drop tests)
from tests.synthdata import Fingerprint, make_corpus

# cli/plain_progress.py's lines: `label: 3/145 (2%), 0:00:01 elapsed, ETA ...`, `label: 145/145
# done in 0:00:02`, `label: 12 so far, ...`
PLAIN_PROGRESS = re.compile(
    r"^[^:]+: \S+(/\S+)?( \(\d+%\))?(, \d+:\d\d:\d\d elapsed| done in | so far)"
)

GAMES = 30


@pytest.fixture(scope="session")
def corpus30(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """30 synthetic games, 10 per sport (read-only)."""
    root = make_corpus(tmp_path_factory.mktemp("faults") / "corpus30", games=GAMES, questions=0)
    seal = Fingerprint(root)
    yield root
    seal.check("30-game corpus")


def build_bm25(corpus: Path, out: Path, **options: object) -> BuildSummary:
    """An index without vectors: the embedded build's every step but embedding."""
    from playscout.indexer.build import build_from_corpus

    summary = build_from_corpus(corpus, out, doc_embedder=None, caption_embedder=None, **options)
    assert isinstance(summary, BuildSummary)
    return summary


@pytest.fixture(scope="session")
def index30(corpus30: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A BM25 index of corpus30 (read-only: copy it before changing it)."""
    out = tmp_path_factory.mktemp("faults_index") / "index"
    build_bm25(corpus30, out)
    seal = Fingerprint(out)
    yield out
    seal.check("30-game index")


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "playscout", *args]


def build_cmd(corpus: Path, out: Path, *extra: str) -> list[str]:
    return cli(
        "index", "build", "--corpus", str(corpus), "--out", str(out),
        "--doc-embedder", "none", "--caption-embedder", "none", *extra,
    )  # fmt: skip


def run_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cli(*args), capture_output=True, text=True, timeout=timeout)


def error_line(proc: subprocess.CompletedProcess[str]) -> str:
    """The one `error: ...` line a user error prints (asserting there is exactly that, after
    any progress: a bar, or cli/plain_progress.py's lines when stderr is not a terminal)."""
    lines = [
        ln
        for ln in proc.stderr.splitlines()
        if ln.strip() and "━" not in ln and not PLAIN_PROGRESS.match(ln)
    ]
    assert "Traceback" not in proc.stderr, proc.stderr
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    return lines[0]


def staging_left(out: Path) -> list[str]:
    """What builds to `out` left beside it (staging and retired folders, lock files)."""
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}."))


def wait_for(predicate: Callable[[], bool], timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout_s} s")
        time.sleep(0.001)


def open_fds() -> set[str]:
    """This process's open file descriptors, as what they point at."""
    out = set()
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):  # the listing's own descriptor is gone by now
            out.add(os.readlink(f"/proc/self/fd/{fd}"))
    return out


def _mount_reason() -> str | None:
    if os.geteuid() != 0:
        return "mounting a size-limited tmpfs needs root (CI runs as root)"
    if shutil.which("mount") is None:
        return "no mount(8) on this machine"
    return None


class Tmpfs:
    """A tmpfs of a given size mounted under a test's tmp_path; unmounted at teardown."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.mounts: list[Path] = []

    def __call__(self, size: str, read_only: bool = False) -> Path:
        point = self.base / f"tmpfs{len(self.mounts)}"
        point.mkdir()
        opts = f"size={size}" + (",ro" if read_only else "")
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(point)],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
        self.mounts.append(point)
        return point

    def unmount_all(self) -> None:
        for point in reversed(self.mounts):
            subprocess.run(["umount", "-l", str(point)], capture_output=True)


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Tmpfs]:
    if reason := _mount_reason():
        pytest.skip(reason)
    mounts = Tmpfs(tmp_path)
    try:
        yield mounts
    finally:
        mounts.unmount_all()


def llm_settings(
    tmp_path: Path, synth_index: Any, model_url: str, traj: Path | None = None,
    session_db: Path | None = None, **extra: Any,
) -> Any:  # fmt: skip
    """A server's settings whose agent model is `model_url` (text tool protocol, no retries)."""
    from tests.serving.conftest import make_settings

    agent = {
        "trajectory_dir": traj or tmp_path / "traj",
        "session_db": session_db or tmp_path / "s.sqlite",
        "tool_protocol": "text",
        "llm": {"base_url": model_url, "model": "fake-model", "max_retries": 0},
    }
    return make_settings(tmp_path, synth_index, agent=agent, **extra)


@contextlib.contextmanager
def server_process(settings: Any, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The app of `settings` in its own uvicorn process (its URL, its log), terminated after."""
    from tests.serving.conftest import free_port
    from tests.serving.test_run_faults import start_server

    config = tmp_path / "settings.json"
    config.write_text(settings.model_dump_json())
    log, port = tmp_path / "server.log", free_port()
    server = start_server(config, port, log)
    try:
        yield f"http://127.0.0.1:{port}", log
    finally:
        server.terminate()
        server.wait(30)
