"""The registry of search backend kinds: which kind a target is (or the one a setting forces),
read by every site that opens, builds or verifies an index (search.open, search.verify,
indexer.build, the CLI, the runtime). A new backend kind is one module defining a
`BackendKind` plus one line in `KINDS`'s table (or `register_kind` from an embedding app); it
proves itself with the conformance suite, `playscout.search.conformance`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from playscout.registry import Registry, RegistryError
from playscout.search.backend_api import IndexOpenError

if TYPE_CHECKING:
    from playscout.search.kind import BackendKind

AUTO = "auto"


class BackendKindError(IndexOpenError):
    """A target no kind recognises, an unknown kind name, or a target that does not fit the
    kind a setting forces: one line naming both."""


def _named_by_its_entry(name: str, kind: BackendKind) -> None:
    if name == AUTO:
        raise RegistryError(f"{AUTO!r} is no backend kind's name: it means 'choose by the target'")
    if kind.name != name:
        raise RegistryError(f"backend kind {name!r}: its entry is named {kind.name!r}")


KINDS: Registry[BackendKind] = Registry(
    "backend kind",
    {
        "embedded": "playscout.search.embedded_kind:EMBEDDED",
        "elasticsearch": "playscout.search.elastic_kind:ELASTICSEARCH",
    },
    unknown=BackendKindError,
    check=_named_by_its_entry,
)


def builtin_kinds() -> tuple[BackendKind, ...]:
    """The kinds playscout ships (each runs the conformance suite in tests/search)."""
    return tuple(KINDS.get(name) for name in KINDS.builtins)


def register_kind(kind: BackendKind) -> None:
    """Add a kind; its name must be new (a second registration is a mistake, not an override)."""
    KINDS.add(kind.name, kind)


def unregister_kind(name: str) -> None:
    """Remove a kind added by `register_kind` (tests); the built-in ones stay."""
    KINDS.remove(name)


def kind_names() -> tuple[str, ...]:
    return KINDS.names()


def _choices() -> str:
    return "; ".join(f"{k.name}: {k.describes}" for k in KINDS.values())


def get_kind(name: str) -> BackendKind:
    return KINDS.get(name)


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
    found = [k for k in KINDS.values() if k.recognises(text)]
    if not found:
        raise BackendKindError(f"no backend kind recognises index target {text!r} ({_choices()})")
    if len(found) > 1:
        names = ", ".join(k.name for k in found)
        raise BackendKindError(f"index target {text!r} is recognised by several kinds: {names}")
    return found[0]
