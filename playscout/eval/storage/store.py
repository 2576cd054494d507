"""Crash-safe run records: one JSON object per line, appended with a single `os.write` on an
O_APPEND descriptor and fsync'd, so a kill -9 leaves at most one torn final line (skipped on
read) and never a half-written record in the middle. Later lines for the same key win, which
is how a retried failure replaces its error record without rewriting the file.

results.jsonl is read and written as typed `ResultRow`s (ResultStore); judgements.jsonl stays
plain records keyed by (question, judge)."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
from pydantic import ValidationError

from playscout.errors import displayable_json
from playscout.eval.errors import RunError
from playscout.eval.storage.records import ResultRow
from playscout.storage import user_os_error

log = logging.getLogger(__name__)
RESULTS = "results.jsonl"
REMOVED = "removed"  # the key of a results.jsonl record that takes a question out of the run
JUDGEMENTS = "judgements.jsonl"
RUN_JSON = "run.json"
TRAJECTORIES = "trajectories"


class JsonlStore:
    """Append-only JSONL keyed by `key_fields`; thread-safe within a process and locked
    (flock) against writers in other processes."""

    def __init__(self, path: Path, key_fields: tuple[str, ...] = ("qid",)) -> None:
        self.path = Path(path)
        self.key_fields = key_fields
        self._lock = threading.Lock()

    def append(self, record: dict[str, Any]) -> None:
        line = orjson.dumps(record, option=orjson.OPT_SERIALIZE_NUMPY) + b"\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock:
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            except OSError as e:
                raise _named(e, self.path)  # noqa: B904
            try:
                # other processes (a CLI beside a server) append too: the lock keeps a heal
                # and a record of one writer from interleaving with another's
                fcntl.flock(fd, fcntl.LOCK_EX)
                size = os.fstat(fd).st_size
                try:
                    self._heal(fd)
                    if os.write(fd, line) < len(line):  # the disk filled mid-line
                        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                    os.fsync(fd)
                except OSError as e:
                    with contextlib.suppress(OSError):  # no torn record is left behind
                        os.ftruncate(fd, size)
                    raise _named(e, self.path)  # noqa: B904
            finally:
                os.close(fd)

    def _heal(self, fd: int) -> None:
        """A torn last line (killed mid-write) gets its newline so the next record starts clean."""
        size = os.fstat(fd).st_size
        if size:
            with self.path.open("rb") as fh:
                fh.seek(size - 1)
                if fh.read(1) != b"\n":
                    os.write(fd, b"\n")

    def rows(self) -> Iterator[dict[str, Any]]:
        if not self.path.is_file():
            return
        for raw in self.path.read_bytes().splitlines():
            if not raw.strip():
                continue
            try:
                row = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue  # torn line from a killed writer
            if isinstance(row, dict):
                yield row

    def key(self, row: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(row.get(k) for k in self.key_fields)

    def latest(self) -> dict[tuple[Any, ...], dict[str, Any]]:
        out: dict[tuple[Any, ...], dict[str, Any]] = {}
        for row in self.rows():
            out[self.key(row)] = row
        return out


class ResultStore:
    """A run's results.jsonl as `ResultRow`s, latest per question id.

    A line that is JSON but not a result row (a wrong field type, no question id: an edit by
    hand, a bug of another version) is skipped like a torn line, so it blocks neither the
    report nor the resume: its question's earlier row counts, or, when it has none, the
    question runs again. `skipped` says what was skipped, for the caller to show."""

    def __init__(self, run_dir: Path) -> None:
        self.records = JsonlStore(Path(run_dir) / RESULTS, ("qid",))
        self.skipped: list[str] = []

    @property
    def path(self) -> Path:
        return self.records.path

    def append(self, row: ResultRow) -> None:
        self.records.append(row.to_record())

    def remove(self, qids: list[str], why: str) -> None:
        """The questions leave the run (a record `{"qid", "removed"}` that later rows override):
        a resume after they were deleted from the task must not score them any more."""
        for qid in qids:
            self.records.append({"qid": qid, REMOVED: why})

    def latest(self) -> dict[str, ResultRow]:
        """Question id -> its latest row, in first-seen order."""
        out: dict[str, ResultRow] = {}
        self.skipped = []
        for record in self.records.rows():
            if REMOVED in record and "status" not in record:
                out.pop(str(record.get("qid")), None)
                continue
            try:
                row = ResultRow.model_validate(record)
            except ValidationError as e:
                qid = record.get("qid")
                what = f"the row for question {qid!r}" if isinstance(qid, str) else "a row"
                self.skipped.append(f"{what} is not a result row ({_first(e)})")
                continue
            out[row.qid] = row
        if self.skipped:
            log.warning(
                "%s: skipped %d line(s) that are not result rows (first: %s); their questions "
                "run again on resume",
                self.path,
                len(self.skipped),
                self.skipped[0],
            )
        return out


def _first(error: ValidationError) -> str:
    first = error.errors()[0]
    return f"{'.'.join(str(p) for p in first['loc']) or 'row'}: {first['msg']}"


def results_store(run_dir: Path) -> ResultStore:
    return ResultStore(run_dir)


def judgements_store(run_dir: Path) -> JsonlStore:
    return JsonlStore(Path(run_dir) / JUDGEMENTS, ("qid", "judge"))


def require_run_dir(run_dir: Path) -> Path:
    """`run_dir` if it holds a run (its run.json), else a one-line RunError naming it."""
    if not (Path(run_dir) / RUN_JSON).is_file():
        raise RunError(
            f"{run_dir} is not a run directory (no {RUN_JSON}): give the --out of `playscout eval run`"
        )
    return Path(run_dir)


def load_results(run_dir: Path) -> list[ResultRow]:
    """The latest row per question, in first-seen order."""
    return list(results_store(run_dir).latest().values())


def _named(error: OSError, path: Path) -> OSError:
    """A write the disk refused as a one-line StorageError naming `path` (a failed write
    carries no file name); any other error as it is."""
    return user_os_error(error, path) or error


def write_json_atomic(path: Path, data: Any) -> None:
    """Non-string keys (a metric's {1: r@1, 5: r@5}) are written as strings, and names that
    are not UTF-8 escaped (errors.displayable), as JSON needs."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    option = orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS
    try:
        tmp.write_bytes(orjson.dumps(displayable_json(data), option=option))
        with tmp.open("rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as e:  # a full disk: the old file stays whole, no half-written copy is left
        tmp.unlink(missing_ok=True)
        raise _named(e, path)  # noqa: B904  (the context is kept)
