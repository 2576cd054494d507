"""The sports the synthetic generator can make, by name: each is one package here whose SPEC holds
every generator choice (see playscout/synthetic/spec.py) and refers to the sport's record
(playscout/corpus/sports/).

The built-in generators are `SPECS`'s table, imported on first use; a generator defined
elsewhere (a test, a plugin) is added with `register_spec`. This module imports no sport
package, so the sport packages (which import game_sim, roster, captions...) and the modules
that look specs up (roster, schedule, writer...) never form an import circle.
"""

from __future__ import annotations

from typing import NoReturn

from playscout.corpus.sports import UnknownSport, sport
from playscout.registry import Registry, RegistryError

from ..spec import SportSpec


def _refers_to_its_record(name: str, spec: SportSpec) -> None:
    if spec.name != name or sport(name) is not spec.record:
        raise RegistryError(f"the spec of {name!r} must refer to its registered record")


class _Generators(Registry[SportSpec]):
    def missing(self, name: str) -> NoReturn:
        sport(name)  # an unknown sport: its one-line error
        super().missing(name)


SPECS: Registry[SportSpec] = _Generators(
    "sport generator",
    {
        "basketball": "playscout.synthetic.sports.basketball:SPEC",
        "hockey": "playscout.synthetic.sports.hockey:SPEC",
        "soccer": "playscout.synthetic.sports.soccer:SPEC",
    },
    unknown=UnknownSport,
    check=_refers_to_its_record,
)
"""SPECS[name]: a sport's generator (UnknownSport, one line, when there is none)."""


def register_spec(spec: SportSpec) -> SportSpec:
    """Add a sport's generator; its record must be the registered record of its name."""
    return SPECS.add(spec.name, spec)


def unregister_spec(name: str) -> None:
    """Remove a generator added with `register_spec` (tests)."""
    SPECS.remove(name)


def sport_spec(name: str) -> SportSpec:
    """The generator of a sport; UnknownSport (one line) when there is none."""
    return SPECS.get(name)


def spec_names() -> tuple[str, ...]:
    """Every sport the generator can make, in name order."""
    return tuple(sorted(SPECS.names()))


__all__ = ["SPECS", "SportSpec", "register_spec", "spec_names", "sport_spec", "unregister_spec"]
