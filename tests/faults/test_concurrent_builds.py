"""Two builds to one output: exactly one succeeds; the other fails at once, naming the pid of
the build that holds the output, and neither loses the other's work."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import pytest

from playscout.search.core.build import IndexExistsError
from playscout.search.verify import verify_index

from .conftest import build_bm25, build_cmd, error_line, staging_left, wait_for


def start(cmd: list[str]) -> tuple[subprocess.Popen[str], float]:
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return proc, time.monotonic()


@pytest.mark.parametrize("overwrite", [False, True], ids=["new", "overwrite"])
def test_second_build_to_a_running_builds_output_fails_at_once(
    overwrite: bool, corpus30: Path, tmp_path: Path
) -> None:
    out = tmp_path / "index"
    extra = ["--overwrite"] if overwrite else []
    first, _ = start(build_cmd(corpus30, out, *extra))
    wait_for(lambda: any(out.parent.glob(".index.building-*")), 60, "first build started")
    first.send_signal(signal.SIGSTOP)  # hold it mid-build, however fast this machine is
    try:
        second = subprocess.run(
            build_cmd(corpus30, out, *extra), capture_output=True, text=True, timeout=60
        )
    finally:
        first.send_signal(signal.SIGCONT)
    first.communicate(timeout=120)
    assert first.returncode == 0
    assert second.returncode == 2
    line = error_line(second)
    assert f"is being written by another index build (pid {first.pid})" in line, line
    assert verify_index(out).ok and staging_left(out) == []


def test_two_builds_started_together_exactly_one_wins(corpus30: Path, tmp_path: Path) -> None:
    out = tmp_path / "index"
    runs = [start(build_cmd(corpus30, out)) for _ in range(2)]
    ended = []
    for proc, t0 in runs:
        _, err = proc.communicate(timeout=120)
        ended.append((proc.returncode, time.monotonic() - t0, err, proc.pid))
    assert sorted(rc for rc, *_ in ended) == [0, 2], ended
    (_, won_s, _, won_pid) = next(e for e in ended if e[0] == 0)
    (_, lost_s, err, _) = next(e for e in ended if e[0] == 2)
    if "exists; pass" not in err:  # else it reached the lock only after the winner committed
        assert f"(pid {won_pid})" in err, err  # it names the winner...
        assert lost_s < won_s  # ...and did not build a whole index first
    assert verify_index(out).ok and staging_left(out) == []


def test_an_output_that_appears_during_the_build_is_kept(corpus30: Path, tmp_path: Path) -> None:
    """Something other than playscout creates the output mid-build: the commit's atomic
    no-replace rename keeps it, and the build fails instead of silently replacing it."""
    out = tmp_path / "index"

    def appear(what: str, done: int, total: int | None) -> None:
        if not out.exists():
            out.mkdir()
            (out / "theirs.txt").write_text("not yours")

    with pytest.raises(IndexExistsError, match="appeared while this build ran"):
        build_bm25(corpus30, out, progress=appear)
    assert [p.name for p in out.iterdir()] == ["theirs.txt"]
    assert staging_left(out) == []
