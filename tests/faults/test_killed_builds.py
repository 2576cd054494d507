"""`index build` killed with SIGKILL at several points: the index it was replacing stays
byte-identical and searchable, and the next build removes what the killed one left."""

from __future__ import annotations

import shutil
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from playscout.search import open_backend
from playscout.search.core.build import IndexExistsError
from playscout.search.verify import verify_index

from .conftest import build_bm25, build_cmd, staging_left, wait_for

# Where the build is when it is killed, seen from its staging folder (the corpus has three
# sports, built one after the other): each point is seconds apart on a 2-core machine.
KILL_POINTS: dict[str, Callable[[Path], bool]] = {
    "staging folder created": lambda stage: True,
    "first sport's clips": lambda stage: (stage / "basketball" / "clips").is_dir(),
    "second sport started": lambda stage: (stage / "hockey").is_dir(),
    "last sport's clips": lambda stage: (stage / "soccer" / "clips").is_dir(),
}


def file_bytes(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def kill_build_at(cmd: list[str], out: Path, point: Callable[[Path], bool]) -> Path:
    """Starts the build, SIGKILLs it when its staging folder satisfies `point`; returns the
    staging folder it left."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    found: list[Path] = []

    def reached() -> bool:
        if proc.poll() is not None:
            raise AssertionError(f"the build ended before the kill point: {proc.stderr.read()}")  # type: ignore[union-attr]
        if not found:
            found.extend(out.parent.glob(f".{out.name}.building-*"))
        return bool(found) and point(found[0])

    try:
        wait_for(reached, 60, "kill point")
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    return found[0]


@pytest.mark.parametrize("point", KILL_POINTS, ids=list(KILL_POINTS))
def test_killed_overwrite_keeps_the_old_index(
    point: str, corpus30: Path, index30: Path, tmp_path: Path
) -> None:
    out = tmp_path / "index"
    shutil.copytree(index30, out)
    before = file_bytes(out)
    stage = kill_build_at(build_cmd(corpus30, out, "--overwrite"), out, KILL_POINTS[point])

    assert file_bytes(out) == before  # not one byte of the old index changed
    assert verify_index(out).ok
    hits = open_backend(out).search_documents("hockey", "goal", top_k=3, mode="bm25")
    assert hits and all(h.record.sport == "hockey" for h in hits)
    assert stage.is_dir()  # SIGKILL leaves the staging folder: the next build's job

    summary = build_bm25(corpus30, out, overwrite=True)
    assert summary.swept.folders == 1
    # Killed as soon as its folder exists, a build may not have written a byte yet.
    assert summary.swept.bytes > 0 or point == "staging folder created"
    assert staging_left(out) == []  # no staging folder, no lock file
    assert verify_index(out).ok


def test_killed_first_build_leaves_no_index_and_the_next_one_sweeps(
    corpus30: Path, tmp_path: Path
) -> None:
    out = tmp_path / "index"
    kill_build_at(build_cmd(corpus30, out), out, KILL_POINTS["second sport started"])
    assert not out.exists()  # a reader finds no index, never half of one
    left = staging_left(out)
    assert len(left) == 2 and f".{out.name}.lock" in left  # the dead build's lock file too

    done = subprocess.run(build_cmd(corpus30, out), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "removed 1 stale staging folder(s)" in done.stderr
    assert staging_left(out) == []
    assert verify_index(out).ok


@pytest.mark.parametrize("overwrite", [False, True], ids=["new", "overwrite"])
def test_a_swap_killed_between_its_renames_is_repaired(
    overwrite: bool, corpus30: Path, index30: Path, tmp_path: Path
) -> None:
    """Where the file system cannot exchange two folders, the commit moves the old index
    aside, then the new one in; SIGKILL between the two leaves no index at `--out` and the
    old one in `.NAME.old-*/index`. That state, made by hand: the next build puts the old
    index back before it sweeps (it is the only copy), and then refuses or replaces it."""
    out = tmp_path / "index"
    aside = tmp_path / ".index.old-k1ll3d_x"
    aside.mkdir()
    shutil.copytree(index30, aside / "index")
    before = file_bytes(aside / "index")
    if overwrite:
        summary = build_bm25(corpus30, out, overwrite=True)
        assert summary.swept.folders == 1  # the emptied .old folder
    else:
        with pytest.raises(IndexExistsError):
            build_bm25(corpus30, out)
        assert file_bytes(out) == before
    assert staging_left(out) == [] and verify_index(out).ok
