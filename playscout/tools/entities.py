"""Resolves team and player names typed by a model to the index's canonical names.

Unlike the reference (difflib 0.6 + first substring hit, printed to stdout only), every
resolution says how it was made, ambiguous names stay visible, and a name that does not
resolve is reported, never silently dropped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel
from rapidfuzz import fuzz, process, utils

from playscout.corpus.sports import sport as sport_record

Method = Literal["exact", "alias", "name part", "fuzzy", "unresolved"]

_WORD = re.compile(r"[\w'.&-]+")


class Resolution(BaseModel):
    kind: Literal["team", "player"]
    name: str
    matches: list[str]
    method: Method
    score: float = 1.0
    suggestions: list[str] = []

    @property
    def resolved(self) -> bool:
        return bool(self.matches)

    def note(self) -> str | None:
        """The line the model reads; None when the name was matched exactly."""
        if self.method == "exact":
            return None
        if not self.matches:
            hint = f"; closest: {', '.join(self.suggestions)}" if self.suggestions else ""
            return f"{self.kind} {self.name!r} matches no known {self.kind}{hint}"
        target = self.matches[0] if len(self.matches) == 1 else " | ".join(self.matches)
        how = f"fuzzy {self.score:.2f}" if self.method == "fuzzy" else self.method
        ambiguous = f", ambiguous: {len(self.matches)} matches" if len(self.matches) > 1 else ""
        return f"{self.kind} {self.name!r} resolved to {target!r} ({how}{ambiguous})"


def _words(name: str) -> tuple[str, ...]:
    return tuple(w.casefold() for w in _WORD.findall(name))


class EntityResolver:
    """Canonical names of one sport; cheap to query, built once per index."""

    def __init__(self, sport: str, teams: Sequence[str], players: Sequence[str], cutoff: float):
        self.sport = sport
        self.cutoff = cutoff
        self._names = {"team": list(dict.fromkeys(teams)), "player": list(dict.fromkeys(players))}
        self._exact = {k: {n.casefold(): n for n in v} for k, v in self._names.items()}
        self._words = {k: [(_words(n), n) for n in v] for k, v in self._names.items()}
        known_teams = set(self._names["team"])
        self._aliases = {
            alias: canon
            for alias, canon in sport_record(sport).team_aliases.items()
            if canon in known_teams
        }

    def teams(self, names: Sequence[str]) -> list[Resolution]:
        return [self.resolve("team", n) for n in names]

    def players(self, names: Sequence[str]) -> list[Resolution]:
        return [self.resolve("player", n) for n in names]

    def resolve(self, kind: Literal["team", "player"], name: str) -> Resolution:
        key = name.strip().casefold()
        if key in self._exact[kind]:
            return Resolution(
                kind=kind, name=name, matches=[self._exact[kind][key]], method="exact"
            )
        if kind == "team" and key in self._aliases:
            return Resolution(kind=kind, name=name, matches=[self._aliases[key]], method="alias")
        parts = _words(name)
        if parts:
            hits = [full for words, full in self._words[kind] if _contains(words, parts)]
            if hits:
                return Resolution(kind=kind, name=name, matches=hits, method="name part")
        return self._fuzzy(kind, name)

    def _fuzzy(self, kind: Literal["team", "player"], name: str) -> Resolution:
        choices = self._names[kind]
        found = process.extract(
            name, choices, scorer=fuzz.WRatio, processor=utils.default_process, limit=3
        )
        if found and found[0][1] / 100 >= self.cutoff:
            best, score = found[0][0], found[0][1] / 100
            runner_up = found[1][1] / 100 if len(found) > 1 else 0.0
            if score - runner_up >= 0.02:
                return Resolution(
                    kind=kind, name=name, matches=[best], method="fuzzy", score=round(score, 2)
                )
        return Resolution(
            kind=kind,
            name=name,
            matches=[],
            method="unresolved",
            score=0.0,
            suggestions=[c for c, s, _ in found if s >= 50],
        )


def _contains(words: tuple[str, ...], parts: tuple[str, ...]) -> bool:
    """True when `parts` occurs as consecutive whole words of `words` ('Charlotte' in
    'Charlotte Hornets', 'Curry' in 'Stephen Curry')."""
    n = len(parts)
    return any(words[i : i + n] == parts for i in range(len(words) - n + 1))
