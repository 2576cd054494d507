"""Corpus model and loader for the SVI-Bench T9 release layout."""

from playscout.indexer.corpus.errors import CorpusError, Problem
from playscout.indexer.corpus.loader import Corpus
from playscout.indexer.corpus.models import (
    DOC_TYPE_FAMILIES,
    DOC_TYPES,
    PERIOD_NAME,
    SPORTS,
    ClipRecord,
    DocumentRecord,
    Question,
)
from playscout.indexer.corpus.validate import ValidationReport, validate_corpus

__all__ = [
    "DOC_TYPES",
    "DOC_TYPE_FAMILIES",
    "PERIOD_NAME",
    "SPORTS",
    "ClipRecord",
    "Corpus",
    "CorpusError",
    "DocumentRecord",
    "Problem",
    "Question",
    "ValidationReport",
    "validate_corpus",
]
