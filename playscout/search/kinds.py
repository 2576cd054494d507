"""The registry of search backend kinds: which kind a target is (or the one a setting forces),
read by every site that opens, builds or verifies an index (search.open, search.verify,
indexer.build, the CLI, the runtime). A new backend kind is one module defining a
`BackendKind` plus one line in `BUILTIN` (or `register_kind` from an embedding app)."""

from __future__ import annotations

from pathlib import Path

from playscout.search.backend_api import IndexOpenError
from playscout.search.elastic_kind import ELASTICSEARCH
from playscout.search.embedded_kind import EMBEDDED
from playscout.search.kind import BackendKind

AUTO = "auto"
BUILTIN = (EMBEDDED, ELASTICSEARCH)
_KINDS: dict[str, BackendKind] = {k.name: k for k in BUILTIN}


class BackendKindError(IndexOpenError):
    """A target no kind recognises, an unknown kind name, or a target that does not fit the
    kind a setting forces: one line naming both."""


def register_kind(kind: BackendKind) -> None:
    """Add a kind; its name must be new (a second registration is a mistake, not an override)."""
    if kind.name in _KINDS or kind.name == AUTO:
        raise ValueError(f"a backend kind named {kind.name!r} is already registered")
    _KINDS[kind.name] = kind


def unregister_kind(name: str) -> None:
    """Remove a kind added by `register_kind` (tests); the built-in ones stay."""
    if any(k.name == name for k in BUILTIN):
        raise ValueError(f"{name!r} is a built-in backend kind")
    _KINDS.pop(name, None)


def kind_names() -> tuple[str, ...]:
    return tuple(_KINDS)


def _choices() -> str:
    return "; ".join(f"{k.name}: {k.describes}" for k in _KINDS.values())


def get_kind(name: str) -> BackendKind:
    kind = _KINDS.get(name)
    if kind is None:
        raise BackendKindError(f"backend {name!r} is not one of {', '.join((AUTO, *_KINDS))}")
    return kind


def kind_for(target: Path | str, backend: str = AUTO) -> BackendKind:
    """The kind that recognises `target`; `backend` (Settings.backend, `index build
    --backend`) other than "auto" forces one, and a target it does not recognise is an error
    rather than a silent switch to another kind."""
    text = str(target)
    if backend != AUTO:
        kind = get_kind(backend)
        if not kind.recognises(text):
            raise BackendKindError(
                f"backend {kind.name} needs {kind.describes}, not {text!r} (set backend to "
                f"{AUTO} to choose the kind from the target)"
            )
        return kind
    found = [k for k in _KINDS.values() if k.recognises(text)]
    if not found:
        raise BackendKindError(f"no backend kind recognises index target {text!r} ({_choices()})")
    if len(found) > 1:
        names = ", ".join(k.name for k in found)
        raise BackendKindError(f"index target {text!r} is recognised by several kinds: {names}")
    return found[0]
