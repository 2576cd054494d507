"""Writing outputs so that faults leave nothing wrong behind: one line for a write the disk
refused, a free-space check before large writes, an exclusive lock on an output path, a sweep
of what killed writers left beside it, and a rename that never replaces.

Every command that writes a directory of results (index build, video indexing) stages it in a
hidden sibling folder `.NAME.<kind>-XXXXXXXX` and renames it into place at the end. A writer
killed with SIGKILL cannot clean up, so the next writer to take the output's lock sweeps what
is left: while it holds `.NAME.lock`, no one else can be writing `.NAME.*` staging folders.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import logging
import os
import re
import shutil
import socket
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from pydantic import BaseModel

from playscout.errors import PlayscoutError

log = logging.getLogger(__name__)

# The OSErrors a user causes (and fixes): what each one says in the one-line error.
USER_ERRNOS = {
    errno.ENOSPC: "no space left on device",
    errno.EDQUOT: "disk quota exceeded",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.EROFS: "read-only file system",
}
# tempfile.mkdtemp's suffix: 8 characters of this alphabet.
_TEMP_SUFFIX = "[a-z0-9_]{8}"


class StorageError(PlayscoutError, OSError):
    """A write the file system refused for a reason the user can fix (full, read-only, no
    permission). The message names the path and, for a full disk, the free and needed space;
    `errno` is the refusal's."""

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.errno = code


class OutputBusyError(PlayscoutError, RuntimeError):
    """Another process holds the lock on the output path."""


def human_bytes(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if abs(n) < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    raise AssertionError("unreachable")


def free_bytes(path: Path) -> int:
    """Free space for an unprivileged writer on the file system that holds `path` (or the
    nearest folder above it that exists)."""
    path = Path(path).absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return shutil.disk_usage(path).free


_RUST_IO = re.compile(r"\(os error (\d+)\)")  # std::io::Error as Rust libraries (tantivy) print it
_SHORT_WRITE = re.compile(r"\d+ requested and \d+ written")  # numpy's tofile on a full disk


# SQLite's primary result codes for the refusals a user fixes (sqlite3.h), as errnos.
_SQLITE_ERRNOS = {13: errno.ENOSPC, 8: errno.EROFS, 23: errno.EACCES}  # FULL, READONLY, AUTH


def os_error_of(exc: BaseException) -> OSError | None:
    """The OSError inside what libraries raise for one: an OSError with an errno; numpy's
    errno-less short write (`N requested and M written`: the disk is full); SQLite's "database
    or disk is full" and "attempt to write a readonly database"; a Rust library's error text
    ending in `(os error N)`. None for anything else."""
    if isinstance(exc, OSError) and exc.errno is not None:
        return exc
    if isinstance(exc, sqlite3.Error):
        code = _SQLITE_ERRNOS.get((getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF)
        return OSError(code, os.strerror(code)) if code else None
    text = str(exc)
    if isinstance(exc, OSError) and _SHORT_WRITE.search(text):
        return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    found = _RUST_IO.search(text)
    return OSError(int(found.group(1)), os.strerror(int(found.group(1)))) if found else None


def user_os_error(
    exc: BaseException,
    path: Path | str | None = None,
    needed: int | None = None,
    *,
    at_least: bool = False,
) -> StorageError | None:
    """The one-line StorageError for an OSError the user caused, else None (a bug: keep it).
    `path` names what was being written (default: the error's own file name); `needed` is the
    size of the write when known, or with `at_least` what was written before the disk filled."""
    if isinstance(exc, StorageError):
        return exc
    found = os_error_of(exc)
    if found is None or found.errno not in USER_ERRNOS:
        return None
    where = Path(path) if path else Path(found.filename) if found.filename else None
    reason = USER_ERRNOS[found.errno]
    writing = found.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS)  # else: read or write
    text = reason if where is None else f"{'cannot write ' if writing else ''}{where}: {reason}"
    if found.errno in (errno.ENOSPC, errno.EDQUOT) and where is not None:
        free = free_bytes(where)
        text += f" ({human_bytes(free)} free"
        if needed and at_least:  # it failed, so it needed more than was free, too
            text += f", more than {human_bytes(max(needed, free))} needed"
        elif needed:
            text += f", about {human_bytes(needed)} needed"
        text += ")"
    return StorageError(text, found.errno)


def storage_error_in(
    exc: BaseException | None, path: Path | str | None = None
) -> StorageError | None:
    """The one-line StorageError for `exc` or what caused it (`__cause__`, `__context__`, a
    wrapper's `cause`), else None: a route or a run that failed because a write was refused
    says so, not "internal error"."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if (found := user_os_error(exc, path)) is not None:
            return found
        exc = getattr(exc, "cause", None) or exc.__cause__ or exc.__context__
    return None


def ensure_free(directory: Path, needed: int, what: str) -> None:
    """Refuse a write of `needed` bytes into `directory` before it starts, when the file
    system cannot hold it (so a full disk fails at once, not after minutes of work)."""
    free = free_bytes(directory)
    if needed > free:
        raise StorageError(
            f"cannot write {what} to {directory}: no space left on device "
            f"({human_bytes(free)} free, {human_bytes(needed)} needed)",
            errno.ENOSPC,
        )


def tree_size(path: Path) -> int:
    """Bytes of the files under `path` (0 when it is gone); never raises."""
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(root, name)).st_size
    return total


_RENAME_NOREPLACE = 1
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _renameat2(src: Path, dst: Path, flags: int) -> bool:
    """renameat2(2) with `flags`; False where the kernel, libc or file system lacks it."""
    fn = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    if fn is None:
        return False
    if fn(_AT_FDCWD, os.fsencode(src), _AT_FDCWD, os.fsencode(dst), flags) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(dst))


def rename_noreplace(src: Path, dst: Path) -> None:
    """Rename `src` to `dst` unless `dst` exists (FileExistsError): one atomic check-and-rename
    where the file system supports it, a check then a rename elsewhere."""
    if _renameat2(src, dst, _RENAME_NOREPLACE):
        return
    if os.path.lexists(dst):
        raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(dst))
    os.rename(src, dst)


def exchange(a: Path, b: Path) -> bool:
    """Swap two existing paths atomically; False where unsupported (nothing was changed)."""
    return _renameat2(a, b, _RENAME_EXCHANGE)


HOLDER_WAIT_S = 5.0


def _holder_pid(fd: int) -> str:
    """The pid in a lock file someone holds. The holder writes it just after it takes the lock,
    so a writer refused in between waits for it (briefly: a live holder writes it at once)."""
    deadline = time.monotonic() + HOLDER_WAIT_S
    while True:
        first = os.pread(fd, 32, 0).decode(errors="replace").split("\n", 1)[0].strip()
        if first or time.monotonic() > deadline:
            return first or "unknown"
        time.sleep(0.01)


@dataclass(frozen=True)
class Swept:
    folders: int = 0
    bytes: int = 0

    def __str__(self) -> str:
        return f"removed {self.folders} stale staging folder(s), {human_bytes(self.bytes)}"


class OutputLock:
    """An exclusive lock on an output path, held from the start of a write to its commit.

    The lock is a `flock` on `.NAME.lock` beside the output (the output itself is replaced by
    a rename, so it cannot hold the lock). The kernel drops it when the holder exits, however it
    exits; the file holds the holder's pid, which a refused writer names. The holder removes
    the file on release; a killed holder's file is taken over (and removed) by the next writer.
    A writer that locked a file someone just removed sees that its inode is no longer the
    path's and tries again, so two writers never hold two different files."""

    def __init__(self, target: Path, what: str = "build") -> None:
        self.target = Path(target).absolute()
        self.what = what
        self.path = self.target.parent / f".{self.target.name}.lock"
        self._fd: int | None = None

    def acquire(self) -> OutputLock:
        while True:
            try:
                self.target.parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as exc:  # a read-only or foreign folder: name the output
                raise (user_os_error(exc, self.target) or exc) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _holder_pid(fd)
                os.close(fd)
                raise OutputBusyError(
                    f"{self.target} is being written by another {self.what} (pid {holder}); "
                    "wait for it to finish or stop it"
                ) from None
            except BaseException:
                os.close(fd)
                raise
            if self._still_linked(fd):
                break
            os.close(fd)  # its holder removed it after we opened it: lock the new one
        pid = f"{os.getpid()}\n".encode()
        self._fd = fd
        try:
            os.pwrite(fd, pid, 0)  # then cut: a reader never sees the file empty
            os.ftruncate(fd, len(pid))
        except OSError as exc:  # a full disk: no lock left behind, one line naming the output
            self.release()
            raise (user_os_error(exc, self.target) or exc) from None
        return self

    def _still_linked(self, fd: int) -> bool:
        try:
            return os.stat(self.path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            return False

    def release(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path)  # while still holding it: see the class docstring
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> OutputLock:
        """Acquires the lock, unless this object already holds it (claim, then `with`)."""
        return self if self._fd is not None else self.acquire()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()

    def staging(self, kind: str) -> re.Pattern[str]:
        """The names `tempfile.mkdtemp(prefix=f".{NAME}.{kind}-")` gives beside the output."""
        return re.compile(rf"\.{re.escape(self.target.name)}\.{re.escape(kind)}-{_TEMP_SUFFIX}")

    def sweep(self, *kinds: str) -> Swept:
        """Remove the staging folders of the given kinds that killed writers left beside the
        output. Only the lock's holder may sweep: no live writer can own them then."""
        if self._fd is None:
            raise RuntimeError("sweep() needs the lock held")
        patterns = [self.staging(kind) for kind in kinds]
        folders = size = 0
        for entry in sorted(self.target.parent.iterdir()):
            if any(p.fullmatch(entry.name) for p in patterns) and entry.is_dir():
                size += tree_size(entry)
                shutil.rmtree(entry, ignore_errors=True)
                folders += 1
        swept = Swept(folders, size)
        if folders:
            log.warning("%s: %s left by killed writers", self.target, swept)
        return swept


class ProcessOwner(BaseModel):
    """The process writing something that outlives it (a batch run's status, an ask's
    trajectory), so a reader can tell a live writer from a dead one: a record still `running`
    whose owner is gone was interrupted, never alive forever. `started` (the process's start
    time) guards against a reused pid."""

    pid: int
    host: str
    started: float | None = None

    @classmethod
    def of(cls, pid: int) -> ProcessOwner:
        """Process `pid` of this machine."""
        return cls(pid=pid, host=socket.gethostname(), started=_process_stat(pid)[1])

    @classmethod
    def me(cls) -> ProcessOwner:
        return cls.of(os.getpid())

    def alive(self) -> bool:
        if self.host != socket.gethostname():
            return True  # another machine's process: we cannot tell, so we do not guess
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            pass  # exists, owned by someone else
        state, started = _process_stat(self.pid)
        if state == "Z":
            return False  # exited, not yet reaped by its parent
        return self.started is None or started == self.started


def _process_stat(pid: int) -> tuple[str | None, float | None]:
    """(state letter, clock ticks since boot at start) of `pid` on Linux; Nones where /proc is
    missing."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None, None
    fields = stat.rpartition(")")[2].split()
    return (fields[0] if fields else None), (float(fields[19]) if len(fields) > 19 else None)
