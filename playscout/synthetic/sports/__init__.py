"""The sports the synthetic generator can make, by name: each is one package here whose SPEC holds
every generator choice (see playscout/synthetic/spec.py) and refers to the sport's record
(playscout/corpus/sports/).

A package here is found by scanning this folder on the first lookup, so adding a sport edits no
list; a generator defined elsewhere (a test, a plugin) is added with `register_spec`. The scan is
lazy and this module imports no sport package, so the sport packages (which import game_sim,
roster, captions...) and the modules that look specs up (roster, schedule, writer...) never form
an import circle.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator, Mapping

from playscout.corpus.sports import UnknownSport, sport

from ..spec import SportSpec

_SPECS: dict[str, SportSpec] = {}
_scanned = False


def register_spec(spec: SportSpec) -> SportSpec:
    """Add a sport's generator; its record must be the registered record of its name."""
    if sport(spec.name) is not spec.record:
        raise ValueError(f"the spec of {spec.name!r} must refer to its registered record")
    known = _SPECS.get(spec.name)
    if known is not None and known is not spec:
        raise ValueError(f"a generator for {spec.name!r} is already registered")
    _SPECS[spec.name] = spec
    return spec


def unregister_spec(name: str) -> None:
    """Remove a generator added with `register_spec` (tests)."""
    _SPECS.pop(name, None)


def _scan() -> dict[str, SportSpec]:
    global _scanned
    if not _scanned:
        for info in pkgutil.iter_modules(__path__):
            module = importlib.import_module(f"{__name__}.{info.name}")
            spec = getattr(module, "SPEC", None)
            if not isinstance(spec, SportSpec) or spec.name != info.name:
                raise ImportError(
                    f"{module.__name__} must define SPEC, the SportSpec of {info.name!r}"
                )
            register_spec(spec)
        _scanned = True
    return _SPECS


def sport_spec(name: str) -> SportSpec:
    """The generator of a sport; UnknownSport (one line) when there is none."""
    specs = _scan()
    if name not in specs:
        sport(name)  # an unknown sport: its one-line error
        known = ", ".join(sorted(specs))
        raise UnknownSport(f"no synthetic generator for sport {name!r}; generators: {known}")
    return specs[name]


def spec_names() -> tuple[str, ...]:
    """Every sport the generator can make, in name order."""
    return tuple(sorted(_scan()))


class _Specs(Mapping[str, SportSpec]):
    """SPECS[name]: a read-only view of the registry (lookups fail as `sport_spec` does)."""

    def __getitem__(self, name: str) -> SportSpec:
        return sport_spec(name)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in _scan()

    def __iter__(self) -> Iterator[str]:
        return iter(spec_names())

    def __len__(self) -> int:
        return len(_scan())


SPECS: Mapping[str, SportSpec] = _Specs()

__all__ = ["SPECS", "SportSpec", "register_spec", "spec_names", "sport_spec", "unregister_spec"]
