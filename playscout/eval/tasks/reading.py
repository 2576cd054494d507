"""Reading a published data file, one line per failure: JSON (truncated or not JSON at all),
CSV, text, and records validated one by one into their format's model, so an error names the
file, the item and the field ("qa.json: item 3: field 'question_type': Field required").
Nothing is read lazily: a run starts only on a file that parsed whole.

Each format's record model (its task module writes it) derives from `Record`: the fields its
protocol needs are required, anything else an item carries is kept (extra="allow") and lands
in the item's `meta`."""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Annotated, Any, TypeVar

import orjson
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from playscout.errors import one_line
from playscout.eval.errors import DataFormatError

M = TypeVar("M", bound=BaseModel)
LETTERS = "ABCDEFGHIJ"  # an answer letter of a published multiple-choice item


def _text(v: Any) -> Any:
    """Ids are numbers in some files and strings in others: both read as text."""
    return str(v) if isinstance(v, int) and not isinstance(v, bool) else v


Text = Annotated[str, BeforeValidator(_text)]
NonEmpty = Annotated[str, Field(min_length=1)]


class Record(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    def extra(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


def option_letter(v: str) -> str:
    m = re.match(r"\s*\(?([A-J])\b", v)
    if not m:
        raise ValueError(f"answer {v!r} is not an option letter A-J")
    return m.group(1)


class NotRunnable(DataFormatError):
    """The data is in a format this reader knows, but one no task can score (T8's captions.json
    is the generators' input): the message says what to pass instead."""


def read_bytes(path: Path) -> bytes:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise DataFormatError(f"{path}: data file not found") from None
    except IsADirectoryError:
        raise DataFormatError(f"{path}: is a folder; this format is one file") from None
    except OSError as e:
        raise DataFormatError(f"{path}: cannot read ({one_line(e, 200)})") from None


def read_text(path: Path) -> str:
    try:
        return read_bytes(path).decode("utf-8")
    except UnicodeDecodeError as e:
        raise DataFormatError(f"{path.name}: not UTF-8 text ({e.reason})") from None


def read_json(path: Path) -> Any:
    raw = read_bytes(path)
    if not raw.strip():
        raise DataFormatError(f"{path.name}: empty file, expected JSON")
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        hint = " (truncated?)" if "unexpected end" in e.msg else ""
        raise DataFormatError(
            f"{path.name}: not valid JSON{hint}: {e.msg} at line {e.lineno} column {e.colno}"
        ) from None


def read_csv(path: Path, required: tuple[str, ...]) -> list[dict[str, str]]:
    """Rows keyed by the header; the header must have every `required` column."""
    try:
        text = read_bytes(path).decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise DataFormatError(f"{path.name}: not UTF-8 text ({e.reason})") from None
    try:
        reader = csv.DictReader(text.splitlines())
        header = reader.fieldnames or []
        missing = [c for c in required if c not in header]
        if missing:
            raise DataFormatError(
                f"{path.name}: CSV header has no column {missing[0]!r}"
                + (f" (nor {', '.join(map(repr, missing[1:]))})" if len(missing) > 1 else "")
            )
        rows = list(reader)
    except csv.Error as e:
        raise DataFormatError(f"{path.name}: not valid CSV: {e}") from None
    for i, row in enumerate(rows):
        if None in row:  # more cells than header columns
            raise DataFormatError(f"{path.name}: row {i + 2}: more cells than header columns")
    return rows


def problem(path: Path, where: str, err: ValidationError) -> DataFormatError:
    """One line for the first error of a validation: file, item, field, message."""
    first = err.errors()[0]
    loc = ".".join(str(p) for p in first["loc"])
    field = f"field {loc!r}: " if loc else ""
    more = f" (+{err.error_count() - 1} more)" if err.error_count() > 1 else ""
    item = f"{where}: " if where else ""
    return DataFormatError(f"{path.name}: {item}{field}{one_line(first['msg'], 200)}{more}")


def validate(path: Path, value: Any, model: type[M], where: str = "") -> M:
    try:
        return model.model_validate(value)
    except ValidationError as e:
        raise problem(path, where, e) from None


def records(path: Path, raw: Any, model: type[M], noun: str = "item") -> list[M]:
    """A JSON list of records, each validated; an empty list is an error (nothing to run)."""
    if not isinstance(raw, list):
        kind = "an object" if isinstance(raw, dict) else type(raw).__name__
        raise DataFormatError(f"{path.name}: expected a JSON list of {noun}s, found {kind}")
    if not raw:
        raise DataFormatError(f"{path.name}: no {noun}s (empty list)")
    return [validate(path, r, model, f"{noun} {i}") for i, r in enumerate(raw)]


def unique_ids(path: Path, ids: list[str]) -> None:
    """Results are keyed by id: two items with one id would overwrite each other."""
    seen: dict[str, int] = {}
    for i, ident in enumerate(ids):
        if ident in seen:
            raise DataFormatError(f"{path.name}: items {seen[ident]} and {i} share id {ident!r}")
        seen[ident] = i
