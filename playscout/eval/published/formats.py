"""What a published format is (each task declares its own: eval/tasks/registry.py), and `read_data`,
which picks the format of a `--data` path and parses it whole, or fails with one line: the
field that is wrong, or, for a file of another task, which task it belongs to."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from playscout.eval.errors import DataFormatError
from playscout.eval.tasks.reading import NotRunnable
from playscout.eval.tasks.task import Instance

if TYPE_CHECKING:
    from playscout.eval.published.task import PublishedTask

SVI = "Texaser/SVI-Bench svi_bench/tasks"


@dataclass(frozen=True)
class Format:
    """One published format of a task, declared with it (eval/tasks/registry.py, `declare`): how the
    data looks, where that is written down, its loader (`parse`) and its route (the
    PublishedTask class that asks and scores its items)."""

    name: str
    layout: str  # what the data looks like, one line
    source: str  # where the format is written down
    parse: Callable[[Path], list[Instance]]
    route: type[PublishedTask]
    kind: str = ".json"  # file suffix, or "folder"
    from_paper: bool = False  # no public file: written from the paper's description
    runnable: bool = True  # False: recognised so the error can say what to pass instead
    example: str = ""  # where such a file is in the release (markdown), for the docs table
    task: str = ""  # the task that declares it (set by `declare`)

    def fits(self, path: Path) -> bool:
        if self.kind == "folder":
            return path.is_dir()
        return path.is_file() and path.suffix.lower() == self.kind


@dataclass
class PublishedData:
    """A parsed data file: its items, and the format they were read in."""

    path: Path
    format: Format
    items: list[Instance]

    @property
    def sports(self) -> list[str]:
        return sorted({i.sport for i in self.items})


def read_data(task: str, path: Path) -> PublishedData:
    path = Path(path)
    if not path.exists():
        raise DataFormatError(f"{path}: data file not found")
    from playscout.eval.tasks.registry import get

    own = list(get(task).published)  # an unknown task: one line naming the known ones
    if not own:
        raise DataFormatError(f"task {task} reads no published format")
    fitting = [f for f in own if f.fits(path)]
    first_error: DataFormatError | None = None
    for fmt in fitting:
        try:
            return PublishedData(path, fmt, fmt.parse(path))
        except NotRunnable:
            raise
        except DataFormatError as e:
            first_error = first_error or e
    other = _other_task(task, path)
    if other is not None:
        raise DataFormatError(
            f"{path.name} is a {other.task} file ({other.name}), not one {task} reads; "
            f"{task} reads {_expected(own)}"
        )
    if first_error is not None:
        raise first_error
    kind = "a folder" if path.is_dir() else f"a {path.suffix or 'suffix-less'} file"
    raise DataFormatError(f"{path.name} is {kind}; {task} reads {_expected(own)}")


def _expected(formats: list[Format]) -> str:
    runnable = [f for f in formats if f.runnable]
    return " or ".join(f"{f.name} ({'folder' if f.kind == 'folder' else f.kind})" for f in runnable)


def _other_task(task: str, path: Path) -> Format | None:
    """The format of another task this data parses as, if any (one wrong --task is common)."""
    from playscout.eval.tasks.registry import all_formats

    for fmt in all_formats():
        if fmt.task == task or not fmt.fits(path):
            continue
        try:
            fmt.parse(path)
        except NotRunnable:
            return fmt
        except DataFormatError:
            continue
        return fmt
    return None
