"""Clip vectors shipped with a corpus (T9 `embeds/videos/{sport}/`), read without a model.

Three layouts per sport directory:
- consolidated (what our tools write): `vectors.npy` float32 (n, d) + `ids.txt`, one id per line;
- bucketed (the release): `_bucket_mapping.json` {"<clip_id>.npy": "NN"} and `NN/<clip_id>.npy`;
- flat: `<clip_id>.npy` (two-digit subdirectories are also scanned when there is no mapping).
These are video-encoder vectors; text cannot be embedded here, so query vectors must come from the
matching text tower, configured separately (never a random or mismatched stand-in).
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from playscout.embed.embedder import EmbedderSpec, EmbeddingError, normalize_rows

VECTORS_FILE = "vectors.npy"
IDS_FILE = "ids.txt"
MAPPING_FILE = "_bucket_mapping.json"
_SPORT_RE = re.compile(r"^[A-Za-z0-9_-]+$")
_BUCKET_RE = re.compile(r"^\d\d$")


def _check_sport(sport: str) -> str:
    if not _SPORT_RE.match(sport):
        raise EmbeddingError(f"invalid sport name {sport!r}: use letters, digits, '_' or '-'")
    return sport


def _npy_shape(path: Path) -> tuple[int, ...]:
    """Read only the .npy header: checking 100k clip files must not load 100k arrays."""
    try:
        with path.open("rb") as f:
            version = np.lib.format.read_magic(f)
            if version == (1, 0):
                shape, _, _ = np.lib.format.read_array_header_1_0(f)
            else:
                shape, _, _ = np.lib.format.read_array_header_2_0(f)
    except (OSError, ValueError) as e:
        raise EmbeddingError(f"cannot read vector file {path}: {e}") from e
    return tuple(shape)


def _vector_dim(path: Path) -> int:
    shape = _npy_shape(path)
    if len(shape) == 1 or (len(shape) == 2 and shape[0] == 1):
        return int(shape[-1])
    raise EmbeddingError(f"vector file {path} has shape {shape}; expected (d,) or (1, d)")


class _SportVectors:
    """The vectors of one sport, whichever layout they are in."""

    def __init__(self, sport_dir: Path) -> None:
        self.dir = sport_dir
        self.matrix: np.ndarray | None = None
        self.row: dict[str, int] = {}
        self.files: dict[str, Path] = {}
        if (sport_dir / VECTORS_FILE).is_file():
            self._load_consolidated()
        else:
            self._index_files()
        self.ids = list(self.row) if self.matrix is not None else sorted(self.files)
        self.dim = self._check_dims()

    def _load_consolidated(self) -> None:
        vec_path, ids_path = self.dir / VECTORS_FILE, self.dir / IDS_FILE
        if not ids_path.is_file():
            raise EmbeddingError(f"{vec_path} has no {IDS_FILE} beside it")
        try:
            matrix = np.load(vec_path, mmap_mode="r")
        except (OSError, ValueError) as e:
            raise EmbeddingError(f"cannot read {vec_path}: {e}") from e
        ids = ids_path.read_text(encoding="utf-8").splitlines()
        if matrix.ndim != 2 or matrix.shape[0] != len(ids):
            raise EmbeddingError(
                f"{vec_path} has shape {matrix.shape} but {ids_path} lists {len(ids)} ids"
            )
        self.row = {cid: i for i, cid in enumerate(ids)}
        if len(self.row) != len(ids):
            raise EmbeddingError(f"{ids_path} lists some ids more than once")
        self.matrix = matrix

    def _index_files(self) -> None:
        mapping_path = self.dir / MAPPING_FILE
        if mapping_path.is_file():
            try:
                mapping = json.loads(mapping_path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                raise EmbeddingError(f"cannot read {mapping_path}: {e}") from e
            if not isinstance(mapping, dict):
                raise EmbeddingError(f"{mapping_path} is not a JSON object")
            for name, bucket in mapping.items():
                ok = isinstance(bucket, str) and _SPORT_RE.match(bucket) and name.endswith(".npy")
                if not ok or "/" in name or "\\" in name:
                    raise EmbeddingError(f"{mapping_path}: bad entry {name!r}: {bucket!r}")
                self.files[name[: -len(".npy")]] = self.dir / bucket / name
            for path in self.dir.glob("*.npy"):  # a partly bucketed tree can hold flat files too
                self.files.setdefault(path.stem, path)
        else:
            paths = list(self.dir.glob("*.npy"))
            paths += [p for p in self.dir.glob("*/*.npy") if _BUCKET_RE.match(p.parent.name)]
            for path in paths:
                if path.stem in self.files:
                    raise EmbeddingError(
                        f"clip {path.stem!r} has two vector files: {self.files[path.stem]} and {path}"
                    )
                self.files[path.stem] = path
        if not self.files:
            raise EmbeddingError(f"no .npy clip vectors found in {self.dir}")

    def _check_dims(self) -> int:
        if self.matrix is not None:
            return int(self.matrix.shape[1])
        dim: int | None = None
        first: Path | None = None
        for cid in self.ids:
            path = self.files[cid]
            if not path.is_file():
                raise EmbeddingError(f"vector file for clip {cid!r} is missing: {path}")
            d = _vector_dim(path)
            if dim is None:
                dim, first = d, path
            elif d != dim:
                raise EmbeddingError(f"vector file {path} is {d}-d but {first} is {dim}-d")
        assert dim is not None
        return dim

    def get(self, ids: Sequence[str]) -> np.ndarray:
        known = self.row if self.matrix is not None else self.files
        missing = [cid for cid in ids if cid not in known]
        if missing:
            raise EmbeddingError(
                f"{len(missing)} clip id(s) have no vector in {self.dir}: "
                f"{', '.join(map(repr, missing[:5]))}{' …' if len(missing) > 5 else ''}"
            )
        if self.matrix is not None:
            rows = np.asarray(self.matrix[[self.row[cid] for cid in ids]], dtype=np.float32)
        else:
            rows = np.zeros((len(ids), self.dim), dtype=np.float32)
            for i, cid in enumerate(ids):
                rows[i] = np.load(self.files[cid]).reshape(-1)
        return rows


class PrecomputedVectors:
    """Read-only vector store over `root/{sport}/`; ids and dims are checked once per sport."""

    def __init__(
        self, root: str | Path, *, dim: int | None = None, model: str | None = None
    ) -> None:
        self.root = Path(root).expanduser()
        if not self.root.is_dir():
            raise EmbeddingError(f"precomputed vectors root {self.root} is not a directory")
        self.model = model if model is not None else str(self.root)
        self._expected_dim = dim
        self._lock = threading.Lock()
        self._sports: dict[str, _SportVectors] = {}

    def _sport(self, sport: str) -> _SportVectors:
        _check_sport(sport)
        with self._lock:
            if sport not in self._sports:
                sport_dir = self.root / sport
                if not sport_dir.is_dir():
                    raise EmbeddingError(
                        f"no vectors for sport {sport!r}: {sport_dir} does not exist"
                    )
                sv = _SportVectors(sport_dir)
                if self._expected_dim is not None and sv.dim != self._expected_dim:
                    raise EmbeddingError(
                        f"vectors in {sport_dir} are {sv.dim}-d but the spec says {self._expected_dim}"
                    )
                self._sports[sport] = sv
            return self._sports[sport]

    def sports(self) -> list[str]:
        return sorted(p.name for p in self.root.iterdir() if p.is_dir() and _SPORT_RE.match(p.name))

    @property
    def dim(self) -> int:
        """Same for every sport and file; the first call reads every file header."""
        if self._expected_dim is not None:
            return self._expected_dim
        dims = {sport: self._sport(sport).dim for sport in self.sports()}
        if not dims:
            raise EmbeddingError(f"no sport directories with vectors under {self.root}")
        if len(set(dims.values())) > 1:
            raise EmbeddingError(f"sports under {self.root} have different dims: {dims}")
        return next(iter(dims.values()))

    def ids(self, sport: str) -> list[str]:
        return list(self._sport(sport).ids)

    def vectors_for(self, sport: str, ids: Sequence[str]) -> np.ndarray:
        if isinstance(ids, str):
            raise EmbeddingError("vectors_for: ids must be a sequence of clip ids, not one str")
        sv = self._sport(sport)
        return normalize_rows(sv.get(list(ids)), sv.dim, f"vectors for {sport} in {sv.dir}")

    def spec(self) -> EmbedderSpec:
        return EmbedderSpec(kind="precomputed", model=self.model, dim=self.dim)

    def _no_text(self) -> EmbeddingError:
        return EmbeddingError(
            "precomputed vectors cannot embed text; configure a query embedder that shares this "
            "vector space (e.g. the text tower of the same model behind an OpenAI-compatible "
            "server, kind 'openai')"
        )

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        raise self._no_text()

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        raise self._no_text()


def write_consolidated(
    out_dir: str | Path, sport: str, ids: Sequence[str], vectors: np.ndarray
) -> Path:
    """Write `out_dir/{sport}/vectors.npy` (normalised float32) + `ids.txt`; returns the sport dir.

    Files are written under temporary names and renamed, so a reader never sees half a store.
    """
    _check_sport(sport)
    id_list = list(ids)
    arr = np.asarray(vectors, dtype=np.float32)
    if arr.ndim != 2 or arr.shape[0] != len(id_list):
        raise EmbeddingError(
            f"write_consolidated: {len(id_list)} ids but vectors shape {arr.shape}"
        )
    for cid in id_list:
        if not cid or cid != cid.strip() or "\n" in cid or "\r" in cid:
            raise EmbeddingError(
                f"write_consolidated: id {cid!r} is empty or has whitespace at an end"
            )
    if len(set(id_list)) != len(id_list):
        raise EmbeddingError("write_consolidated: ids are not unique")
    arr = normalize_rows(arr, arr.shape[1], "write_consolidated")
    sport_dir = Path(out_dir) / sport
    sport_dir.mkdir(parents=True, exist_ok=True)
    tmp_vec, tmp_ids = sport_dir / ".vectors.npy.tmp", sport_dir / ".ids.txt.tmp"
    with tmp_vec.open("wb") as f:
        np.save(f, arr)
    tmp_ids.write_text("".join(cid + "\n" for cid in id_list), encoding="utf-8")
    os.replace(tmp_ids, sport_dir / IDS_FILE)
    os.replace(tmp_vec, sport_dir / VECTORS_FILE)
    return sport_dir
