"""Append-only record blobs: one JSON object per ordinal, read back by offset without parsing the
rest. Cheaper than a tantivy docstore lookup per hit and independent of tantivy's format."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import orjson

from playscout.storage import ensure_free


class BlobWriter:
    """Writes `<name>.bin` (concatenated JSON) and `<name>.off.npy` (n+1 int64 offsets)."""

    def __init__(self, directory: Path, name: str) -> None:
        self._bin = directory / f"{name}.bin"
        self._off = directory / f"{name}.off.npy"
        self._fh: BinaryIO = self._bin.open("wb")
        self._offsets: list[int] = [0]

    def append(self, obj: Any) -> None:
        self.append_bytes(orjson.dumps(obj))

    def append_bytes(self, data: bytes) -> None:
        self._fh.write(data)
        self._offsets.append(self._offsets[-1] + len(data))

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def close(self) -> None:
        self._fh.close()
        np.save(self._off, np.asarray(self._offsets, dtype=np.int64))


class BlobReader:
    """Memory-mapped reader for a BlobWriter's output."""

    def __init__(self, directory: Path, name: str) -> None:
        self._off = np.load(directory / f"{name}.off.npy", mmap_mode="r")
        size = int(self._off[-1])
        self._data: np.ndarray = (
            np.memmap(directory / f"{name}.bin", dtype=np.uint8, mode="r")
            if size
            else np.zeros(0, dtype=np.uint8)
        )

    def __len__(self) -> int:
        return len(self._off) - 1

    @property
    def nbytes(self) -> int:
        return int(self._off[-1])

    def raw(self, i: int) -> bytes:
        return self._data[int(self._off[i]) : int(self._off[i + 1])].tobytes()

    def get(self, i: int) -> Any:
        return orjson.loads(self.raw(i))

    def get_many(self, ordinals: Sequence[int]) -> list[Any]:
        return [self.get(int(i)) for i in ordinals]


def reorder_blob(directory: Path, src: str, dst: str, perm: np.ndarray) -> None:
    """Rewrite blob `src` as `dst` with record i of dst = record perm[i] of src."""
    reader = BlobReader(directory, src)
    ensure_free(directory, reader.nbytes + 8 * (len(reader) + 1) + 128, "records")
    writer = BlobWriter(directory, dst)
    for i in perm:
        writer.append_bytes(reader.raw(int(i)))
    writer.close()
    del reader
