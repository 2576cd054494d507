"""The query log: dense clip queries the server sampled (sport, channel, float32 vector), one
JSON line each, appended by the live-recall checker (live_recall.py) and read by `playscout
index tune --queries LOG` (tune.py) to choose probe settings on the queries users send.

Bounded by size: when an append would take the file past `max_bytes`, the file becomes
`<name>.1` (replacing the previous one) and a new file starts, so the log holds between one and
two files' worth of the most recent queries. Readers take `<name>.1` and `<name>`."""

from __future__ import annotations

import base64
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class LoggedQuery:
    sport: str
    channel: str
    vector: np.ndarray


class QueryLog:
    """Appends to one log file, rotating it by size. Thread-safe."""

    def __init__(self, path: Path, max_bytes: int = 64 << 20) -> None:
        self.path = Path(path)
        self.max_bytes = max_bytes
        self._lock = threading.Lock()

    def append(self, sport: str, channel: str, vector: np.ndarray) -> None:
        raw = np.ascontiguousarray(vector, dtype="<f4").reshape(-1).tobytes()
        entry = {
            "sport": sport,
            "channel": channel,
            "dim": len(raw) // 4,
            "vector": base64.b64encode(raw).decode("ascii"),
        }
        line = (json.dumps(entry, separators=(",", ":")) + "\n").encode()
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                size = self.path.stat().st_size
            except FileNotFoundError:
                size = 0
            if size and size + len(line) > self.max_bytes:
                os.replace(self.path, rotated(self.path))
            with self.path.open("ab") as fh:
                fh.write(line)


def rotated(path: Path) -> Path:
    return path.with_name(path.name + ".1")


def read_log(path: Path) -> list[LoggedQuery]:
    """Every query of a log (its rotated file first, oldest first); a torn last line (a writer
    killed mid-append) is skipped, any other bad line is an error naming its place."""
    path = Path(path)
    files = [p for p in (rotated(path), path) if p.is_file()]
    if not files:
        raise ValueError(f"query log {path}: no such file")
    out: list[LoggedQuery] = []
    for file in files:
        lines = file.read_bytes().split(b"\n")
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
                vector = np.frombuffer(base64.b64decode(entry["vector"]), dtype="<f4")
                if len(vector) != int(entry["dim"]):
                    raise ValueError("vector length differs from dim")
                out.append(LoggedQuery(str(entry["sport"]), str(entry["channel"]), vector))
            except (ValueError, KeyError, TypeError) as e:
                if number == len(lines):  # the last line, unterminated: a torn append
                    continue
                where = f"query log {file}: line {number}"
                raise ValueError(f"{where} is not a logged query ({e})") from None
    return out
