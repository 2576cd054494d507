"""The sessions' SQLite database (multi-turn checkpoints, `agent.session_db`), checked before
it is needed: a corrupt file was found only by the first ask that named a session (a 500),
after the server had started and `/readyz` had said ready. `serve` now refuses to start on
one (one line: which file, what SQLite said, what to do) and `/readyz` reports it."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from playscout.errors import PlayscoutError


class SessionStoreError(PlayscoutError, RuntimeError):
    """The sessions' database cannot be used: HTTP 503 for an ask that names a session."""

    status_code = 503
    code = "sessions_unavailable"

    @classmethod
    def of(cls, path: Path, error: BaseException) -> SessionStoreError:
        return cls(
            f"the session database {path} cannot be used ({type(error).__name__}: {error}); "
            "move it away to start with no sessions, or set agent.session_db"
        )


def check_session_db(path: Path, thorough: bool = False) -> None:
    """Raise SessionStoreError unless `path` is a readable SQLite database (or does not exist
    yet and its folder can hold it). It reads the schema and one row of every table; with
    `thorough` (at start) also SQLite's quick_check, which reads every page."""
    path = Path(path)
    if not path.exists():
        folder = path.parent
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
        if not os.access(folder, os.W_OK):
            raise SessionStoreError.of(path, PermissionError(f"{folder} is not writable"))
        return
    try:
        con = sqlite3.connect(path, timeout=5)
        try:
            tables = con.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
            for (table,) in tables:
                quoted = table.replace('"', '""')
                con.execute(f'SELECT * FROM "{quoted}" LIMIT 1').fetchall()
            if thorough:
                (verdict,) = con.execute("PRAGMA quick_check(1)").fetchone()
                if verdict != "ok":
                    raise sqlite3.DatabaseError(verdict)
        finally:
            con.close()
    except sqlite3.Error as e:
        raise SessionStoreError.of(path, e) from None
