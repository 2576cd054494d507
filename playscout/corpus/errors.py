"""Corpus errors: one line each, naming the file and the field, so users can fix the data."""

from __future__ import annotations

from dataclasses import dataclass

from playscout.errors import PlayscoutError


@dataclass(frozen=True)
class Problem:
    file: str
    field: str
    message: str

    def __str__(self) -> str:
        where = ": ".join(p for p in (self.file, self.field) if p)
        return f"{where}: {self.message}" if where else self.message


class CorpusError(PlayscoutError, ValueError):
    """Raised when a corpus cannot be used; carries every problem found."""

    def __init__(self, problems: list[Problem] | Problem | str):
        if isinstance(problems, str):
            problems = [Problem("", "", problems)]
        elif isinstance(problems, Problem):
            problems = [problems]
        self.problems = problems
        head = str(problems[0]) if problems else "corpus is invalid"
        more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
        super().__init__(head + more)


class PlayByPlayError(PlayscoutError, ValueError):
    """The play-by-play file is malformed (not JSON, missing fields, bad clock values)."""
