"""A full disk and a read-only one, on real size-limited tmpfs mounts (root only: CI runs as
root; elsewhere these skip and say why). The user sees one line naming the path and, for a
full disk, the free and needed space; exit 2; nothing is left on the file system and no file
stays open."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from playscout.corpus import Corpus
from playscout.storage import StorageError, free_bytes

from .conftest import Tmpfs, build_bm25, build_cmd, error_line, open_fds

NO_SPACE = re.compile(
    r"^error: cannot write (?P<path>\S+): no space left on device "
    r"\((?P<free>[\d.]+ [KMG]?B) free, more than (?P<needed>[\d.]+ [KMG]?B) needed\)$"
)


def test_build_into_a_full_disk_is_one_line_and_leaves_nothing(
    corpus30: Path, tmpfs: Tmpfs
) -> None:
    import subprocess

    disk = tmpfs("2m")
    out = disk / "index"
    done = subprocess.run(build_cmd(corpus30, out), capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    found = NO_SPACE.match(error_line(done))
    assert found and found["path"] == str(out), error_line(done)
    assert list(disk.iterdir()) == []  # no staging folder, no lock file, no index
    assert free_bytes(disk) == shutil.disk_usage(disk).total  # and every byte is back


def test_a_build_that_fills_the_disk_closes_its_files(corpus30: Path, tmpfs: Tmpfs) -> None:
    """In-process, with the error still held (as a server or a test would hold it): the
    writers' files are closed, so removing the staging folder really frees the space."""
    disk = tmpfs("1m")
    before = open_fds()
    with pytest.raises(StorageError, match="no space left on device") as caught:
        build_bm25(corpus30, disk / "index")
    assert caught.value.__cause__ is not None  # the traceback (and its frames) is still here
    assert open_fds() == before
    assert list(disk.iterdir()) == []
    assert free_bytes(disk) == shutil.disk_usage(disk).total


def test_predictable_writes_are_refused_before_they_start(corpus30: Path, tmpfs: Tmpfs) -> None:
    """Once the clips are streamed, the filter columns' size is known: with the disk filled
    at that moment, the build refuses them with the exact need, before writing a byte."""
    disk = tmpfs("20m")
    out = disk / "index"
    filler = disk / "filler"
    clips = sum(1 for _ in Corpus(corpus30).iter_clips("basketball"))

    def fill_when_clips_streamed(what: str, done: int, total: int | None) -> None:
        if what == "basketball clips" and done == clips:
            filler.write_bytes(b"\0" * (free_bytes(disk) - 128_000))  # blobs close, no more

    before = open_fds()
    with pytest.raises(StorageError) as caught:
        build_bm25(corpus30, out, sports=["basketball"], progress=fill_when_clips_streamed)
    message = str(caught.value)
    assert re.fullmatch(
        rf"cannot write filter columns to {out}/basketball/clips/cols: no space left on device "
        r"\([\d.]+ KB free, [\d.]+ KB needed\)",
        message,
    ), message
    assert sorted(p.name for p in disk.iterdir()) == ["filler"]
    assert open_fds() == before  # the failed build's files are closed, not just unlinked


def test_read_only_file_system_is_one_line(corpus30: Path, tmpfs: Tmpfs) -> None:
    import subprocess

    disk = tmpfs("1m", read_only=True)
    done = subprocess.run(
        build_cmd(corpus30, disk / "index"), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2
    assert error_line(done) == f"error: cannot write {disk / 'index'}: read-only file system"


def test_other_commands_that_fill_the_disk_say_so_in_one_line(tmpfs: Tmpfs) -> None:
    """The CLI's safety net: `corpus synth` writes straight into its output."""
    import subprocess

    from .conftest import cli

    disk = tmpfs("256k")
    done = subprocess.run(
        cli("corpus", "synth", "--out", str(disk / "c"), "--games", "6", "--workers", "1"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    line = error_line(done)
    assert re.match(rf"error: cannot write {disk}/c\S*: no space left on device \(", line), line
