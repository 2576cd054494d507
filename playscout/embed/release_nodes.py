"""The SVI-Bench T9 release's text units (`embeds/documents/{sport}/all_nodes_embedded.pkl`,
`embeds/captions/{sport}/all_nodes_embedded.pkl`) read without running the pickle's code.

The release ships pickled llama-index `TextNode` objects (reference defect 28): each holds a
text unit, its metadata and its BGE-M3 vector. Unpickling them normally would import
llama-index and run whatever callables the file names, so a pickle is an executable. Here a
restricted unpickler maps an allow-list of names (the node classes, their enums, the numpy and
builtin reconstructors a vector needs) to inert stand-ins and refuses every other name with one
line; the stand-ins are then turned into plain `NodeRecord`s. No llama-index is imported.

`embed_text` renders a unit as the reference embedded it (llama-index's MetadataMode.EMBED:
its metadata as `key: value` lines, then a blank line, then the text), so units playscout
embeds itself are the reference's units (`playscout.search.core.units`)."""

from __future__ import annotations

import io
import pickle
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from playscout.embed.embedder import EmbeddingError

NODES_FILE = "all_nodes_embedded.pkl"
# The llama-index modules the reference's extractors pickled from (0.10+: llama_index.core;
# before: llama_index). Their node classes are read as records, their enums as values.
_SCHEMA_MODULES = ("llama_index.core.schema", "llama_index.schema")
_NODE_CLASSES = frozenset({"TextNode", "Node", "Document", "RelatedNodeInfo", "MediaResource"})
_ENUMS = frozenset({"NodeRelationship", "ObjectType", "MetadataMode"})
SOURCE_RELATION = "1"  # NodeRelationship.SOURCE: the document a node was cut from


class ReleaseFileError(EmbeddingError):
    """A release pickle that is refused (a name outside the allow-list) or not in the node
    shape; one line naming the file and what is wrong."""


class _Stub:
    """An allowed class, inert: it only keeps the state the pickle gives it."""

    qualname = ""

    def __setstate__(self, state: Any) -> None:
        self.__dict__["_state"] = state

    def fields(self) -> dict[str, Any]:
        """The model's fields, whatever pydantic version pickled it: v2 gives
        {'__dict__': fields, '__pydantic_...': ...}, v1 {'__dict__': ..., '__fields_set__': ...}
        or (dict, fields_set), a plain object its __dict__."""
        state = self.__dict__.get("_state")
        if isinstance(state, tuple) and state and isinstance(state[0], dict):
            state = state[0]
        if isinstance(state, dict) and isinstance(state.get("__dict__"), dict):
            return dict(state["__dict__"])
        return dict(state) if isinstance(state, dict) else {}


_STUBS: dict[str, type[_Stub]] = {}


def _stub(module: str, name: str) -> type[_Stub]:
    key = f"{module}.{name}"
    if key not in _STUBS:
        _STUBS[key] = type(name, (_Stub,), {"qualname": key})
    return _STUBS[key]


def _enum_value(value: Any) -> Any:
    """An enum member is read as its value (NodeRelationship.SOURCE -> "1")."""
    return value


def _reconstruct_array(subtype: Any, shape: Any, dtype: Any) -> np.ndarray:
    """numpy's own `_reconstruct`, for plain arrays only (no subclass runs its code)."""
    if subtype is not np.ndarray:
        raise pickle.UnpicklingError("numpy array subclass")
    return np.ndarray.__new__(np.ndarray, shape, dtype)


def _dtype(spec: Any, align: bool = False, copy: bool = True) -> np.dtype[Any]:
    """A numeric dtype; an object dtype would unpickle arbitrary members, so it is refused."""
    dt = np.dtype(spec)
    if dt.hasobject:
        raise pickle.UnpicklingError("numpy object dtype")
    return dt


def _scalar(dtype: np.dtype[Any], data: bytes = b"") -> Any:
    return np.frombuffer(data, dtype=dtype, count=1)[0]


def _frombuffer(buf: Any, dtype: Any, shape: Any, order: str = "C") -> np.ndarray:
    """numpy 2's out-of-band array form (protocol 5): a numeric dtype over a bytes buffer."""
    dt = _dtype(dtype)
    return (
        np.frombuffer(bytes(buf), dtype=dt)
        .reshape(shape, order="F" if order == "F" else "C")
        .copy()
    )


def _latin1_bytes(text: str, encoding: str = "latin1") -> bytes:
    """How protocols 0-2 write bytes (a numpy array's buffer): `_codecs.encode(str, 'latin1')`."""
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1"):
        raise pickle.UnpicklingError("_codecs.encode other than latin1 text")
    return text.encode("latin1")


def _reconstructor(cls: Any, base: Any, state: Any) -> Any:
    """copyreg._reconstructor (pickle protocols 0 and 1), for the inert stand-ins only."""
    if not (isinstance(cls, type) and issubclass(cls, _Stub)) or base is not object:
        raise pickle.UnpicklingError("copyreg._reconstructor of a class outside the allow-list")
    return cls.__new__(cls)


_ALLOWED: dict[tuple[str, str], Callable[..., Any]] = {
    **{(m, "_reconstruct"): _reconstruct_array for m in ("numpy.core.multiarray", "numpy._core.multiarray")},
    **{(m, "scalar"): _scalar for m in ("numpy.core.multiarray", "numpy._core.multiarray")},
    **{(m, "_frombuffer"): _frombuffer for m in ("numpy.core.numeric", "numpy._core.numeric")},
    ("numpy", "ndarray"): np.ndarray,
    ("numpy", "dtype"): _dtype,
    ("copyreg", "_reconstructor"): _reconstructor,
    ("_codecs", "encode"): _latin1_bytes,
    ("builtins", "set"): set,
    ("builtins", "frozenset"): frozenset,
    ("builtins", "object"): object,
    ("collections", "OrderedDict"): dict,
}  # fmt: skip


_PY2_NAMES = {"__builtin__": "builtins", "copy_reg": "copyreg"}


class _SafeUnpickler(pickle.Unpickler):
    """Resolves only the allow-list; every other global is refused before anything runs."""

    def find_class(self, module: str, name: str) -> Any:
        module = _PY2_NAMES.get(module, module)  # protocols 0-2 write Python 2's module names
        if module in _SCHEMA_MODULES and name in _NODE_CLASSES:
            return _stub(module, name)
        if module in _SCHEMA_MODULES and name in _ENUMS:
            return _enum_value
        allowed = _ALLOWED.get((module, name))
        if allowed is not None:
            return allowed
        raise _Refused(f"{module}.{name}")


class _Refused(pickle.UnpicklingError):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


@dataclass
class NodeRecord:
    """One release text unit as plain data: `text` (a sentence of a document, or a clip's
    captions joined), its `metadata`, the keys the reference left out of the embedded text, its
    vector, where it sits in its document (character offsets of the reference's text, which
    turned every newline into '. \\n') and the document it was cut from."""

    id: str
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)
    embedding: np.ndarray | None = None
    excluded_embed_metadata_keys: list[str] = field(default_factory=list)
    start_char_idx: int | None = None
    end_char_idx: int | None = None
    source_id: str | None = None
    metadata_template: str = "{key}: {value}"
    metadata_separator: str = "\n"
    text_template: str = "{metadata_str}\n\n{content}"


def embed_text(
    text: str,
    metadata: Mapping[str, Any],
    excluded: Sequence[str] = (),
    *,
    metadata_template: str = "{key}: {value}",
    metadata_separator: str = "\n",
    text_template: str = "{metadata_str}\n\n{content}",
) -> str:
    """What the reference embedded for a unit (llama-index `get_content(MetadataMode.EMBED)`):
    every metadata key not excluded as `key: value` (values as Python's str prints them, lists
    included), then the text; the bare text when no metadata is left."""
    lines = metadata_separator.join(
        metadata_template.format(key=k, value=str(v))
        for k, v in metadata.items()
        if k not in set(excluded)
    )
    return text_template.format(metadata_str=lines, content=text) if lines else text


def node_embed_text(node: NodeRecord) -> str:
    return embed_text(
        node.text,
        node.metadata,
        node.excluded_embed_metadata_keys,
        metadata_template=node.metadata_template,
        metadata_separator=node.metadata_separator,
        text_template=node.text_template,
    )


def load_nodes(path: Path | str) -> list[NodeRecord]:
    """The units of one release pickle. A name outside the allow-list, a file that is not a
    pickle, or objects not in the node shape: one ReleaseFileError line naming the file."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ReleaseFileError(f"cannot read {path}: {e.strerror or e}") from None
    try:
        loaded = _SafeUnpickler(io.BytesIO(data)).load()
    except _Refused as e:
        raise ReleaseFileError(
            f"{path}: refused to unpickle {e.name}: not a release node class (playscout reads "
            "the release's node pickles without running their code)"
        ) from None
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError) as e:
        raise ReleaseFileError(
            f"{path}: not a release node pickle ({type(e).__name__}: {e})"
        ) from None
    if not isinstance(loaded, list):
        raise ReleaseFileError(f"{path}: holds {type(loaded).__name__}, not a list of nodes")
    return [_record(item, path, i) for i, item in enumerate(loaded)]


def _record(item: Any, path: Path, i: int) -> NodeRecord:
    if not isinstance(item, _Stub) or item.qualname.rsplit(".", 1)[1] not in (
        "TextNode",
        "Node",
        "Document",
    ):
        what = item.qualname if isinstance(item, _Stub) else type(item).__name__
        raise ReleaseFileError(f"{path}: item {i} is {what}, not a TextNode")
    f = item.fields()
    text = f.get("text")
    resource = f.get("text_resource")
    if text is None and isinstance(resource, _Stub):  # llama-index's newer Node keeps it there
        text = resource.fields().get("text")
    node_id = f.get("id_") or f.get("doc_id")
    if not isinstance(text, str) or not isinstance(node_id, str):
        raise ReleaseFileError(f"{path}: item {i} has no text or id_")
    metadata = f.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise ReleaseFileError(f"{path}: item {i} ({node_id}) has metadata that is not a mapping")
    return NodeRecord(
        id=node_id,
        text=text,
        metadata=metadata,
        embedding=_vector(f.get("embedding"), path, node_id),
        excluded_embed_metadata_keys=list(f.get("excluded_embed_metadata_keys") or []),
        start_char_idx=_int_or_none(f.get("start_char_idx")),
        end_char_idx=_int_or_none(f.get("end_char_idx")),
        source_id=_source_id(f.get("relationships")),
        metadata_template=str(f.get("metadata_template") or "{key}: {value}"),
        metadata_separator=str(f.get("metadata_seperator") or f.get("metadata_separator") or "\n"),
        text_template=str(f.get("text_template") or "{metadata_str}\n\n{content}"),
    )


def _vector(value: Any, path: Path, node_id: str) -> np.ndarray | None:
    if value is None:
        return None
    try:
        vec = np.asarray(value, dtype=np.float32).reshape(-1)
    except (TypeError, ValueError):
        raise ReleaseFileError(
            f"{path}: node {node_id} has an embedding that is not numbers"
        ) from None
    if not vec.size or not np.all(np.isfinite(vec)):
        raise ReleaseFileError(f"{path}: node {node_id} has an empty or non-finite embedding")
    return vec


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _source_id(relationships: Any) -> str | None:
    if not isinstance(relationships, dict):
        return None
    source = relationships.get(SOURCE_RELATION)
    if isinstance(source, _Stub):
        node_id = source.fields().get("node_id")
        return node_id if isinstance(node_id, str) else None
    return None
