"""Corpus model and loader for the SVI-Bench T9 release layout."""

from playscout.corpus.errors import CorpusError, Problem
from playscout.corpus.loader import Corpus
from playscout.corpus.models import (
    DOC_TYPE_FAMILIES,
    DOC_TYPES,
    ClipRecord,
    DocumentRecord,
    Question,
)
from playscout.corpus.sports import SportRecord, UnknownSport, sport, sport_names
from playscout.corpus.validate import ValidationReport, validate_corpus

__all__ = [
    "DOC_TYPES",
    "DOC_TYPE_FAMILIES",
    "ClipRecord",
    "Corpus",
    "CorpusError",
    "DocumentRecord",
    "Problem",
    "Question",
    "SportRecord",
    "UnknownSport",
    "ValidationReport",
    "sport",
    "sport_names",
    "validate_corpus",
]
