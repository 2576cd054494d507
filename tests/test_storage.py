"""playscout/storage.py: the output lock across real processes, the sweep, the no-replace and
exchange renames, and which OSErrors become one line."""

from __future__ import annotations

import errno
import fcntl
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from playscout.storage import (
    OutputBusyError,
    OutputLock,
    StorageError,
    ensure_free,
    exchange,
    human_bytes,
    os_error_of,
    rename_noreplace,
    user_os_error,
)

HOLD = textwrap.dedent(
    """
    import sys, time
    from playscout.storage import OutputLock
    lock = OutputLock(sys.argv[1]).acquire()
    print("held", flush=True)
    time.sleep(60)
    """
)


def hold_lock(target: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(target)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_a_held_lock_names_its_holder_and_a_dead_holder_frees_it(tmp_path: Path) -> None:
    target = tmp_path / "index"
    holder = hold_lock(target)
    try:
        with pytest.raises(OutputBusyError, match=rf"another build \(pid {holder.pid}\)"):
            OutputLock(target).acquire()
    finally:
        holder.kill()  # SIGKILL: no chance to release
        holder.wait()
    assert (tmp_path / ".index.lock").exists()  # the dead holder's file stays...
    with OutputLock(target) as lock:  # ...but its lock went with the process
        assert (tmp_path / ".index.lock").read_text() == f"{os.getpid()}\n"
        assert lock.sweep("building") is not None
    assert not (tmp_path / ".index.lock").exists()  # released: the file is gone too


def test_a_writer_refused_before_the_holder_wrote_its_pid_still_names_it(tmp_path: Path) -> None:
    """The holder writes its pid just after it takes the lock; a writer refused in that window
    (seen in CI as "pid unknown") waits for the pid instead of naming nobody."""
    target = tmp_path / "index"
    fd = os.open(tmp_path / ".index.lock", os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held, pid not yet written
    writer = threading.Timer(0.3, lambda: os.pwrite(fd, b"4242\n", 0))
    writer.start()
    try:
        with pytest.raises(OutputBusyError, match=r"another build \(pid 4242\)"):
            OutputLock(target).acquire()
    finally:
        writer.join()
        os.close(fd)


def test_sweep_removes_only_its_outputs_staging(tmp_path: Path) -> None:
    target = tmp_path / "a"
    for name in (".a.building-abc12_x9", ".a.old-zzzzzzzz", ".a.building-foo.building-abcdefgh"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "f").write_bytes(b"x" * 1000)
    (tmp_path / ".b.building-abcdefgh").mkdir()
    with OutputLock(target) as lock:
        swept = lock.sweep("building", "old")
        with pytest.raises(RuntimeError):
            OutputLock(target).sweep("building")  # only the holder may sweep
    assert (swept.folders, swept.bytes) == (2, 2000)
    assert str(swept) == "removed 2 stale staging folder(s), 2.0 KB"
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == [".a.building-foo.building-abcdefgh", ".b.building-abcdefgh"]


def test_rename_noreplace_and_exchange(tmp_path: Path) -> None:
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    a.mkdir()
    (a / "x").write_text("a")
    b.mkdir()  # even an empty directory is kept: a plain rename() would replace it
    with pytest.raises(FileExistsError):
        rename_noreplace(a, b)
    rename_noreplace(a, c)
    assert (c / "x").read_text() == "a" and not a.exists()
    (b / "y").write_text("b")
    if exchange(b, c):  # tmpfs, ext4, xfs, btrfs support it
        assert (b / "x").read_text() == "a" and (c / "y").read_text() == "b"


def test_only_user_caused_os_errors_become_one_line(tmp_path: Path) -> None:
    full = user_os_error(OSError(errno.ENOSPC, "No space left on device"), tmp_path / "out", 5000)
    assert isinstance(full, StorageError) and full.errno == errno.ENOSPC
    assert str(full).startswith(f"cannot write {tmp_path / 'out'}: no space left on device (")
    assert str(full).endswith("free, about 5.0 KB needed)")
    denied = user_os_error(PermissionError(errno.EACCES, "denied", "/etc/x"))
    assert str(denied) == "/etc/x: permission denied"
    assert user_os_error(FileNotFoundError(errno.ENOENT, "nope", "/x")) is None  # a bug
    assert user_os_error(ValueError("boom")) is None
    # What libraries raise for a full disk, without an errno.
    numpy_short_write = OSError("200000 requested and 38384 written")
    tantivy = ValueError("Internal error: 'No space left on device (os error 28)'")
    for exc in (numpy_short_write, tantivy):
        found = os_error_of(exc)
        assert found is not None and found.errno == errno.ENOSPC


def test_ensure_free_refuses_what_cannot_fit(tmp_path: Path) -> None:
    ensure_free(tmp_path, 1, "a byte")
    with pytest.raises(StorageError, match=r"cannot write vectors to .*: no space left on device"):
        ensure_free(tmp_path, 10**18, "vectors")
    assert human_bytes(999) == "999 B" and human_bytes(2_700_000_000) == "2.7 GB"
