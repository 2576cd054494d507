"""The errors a user can cause. The CLI and the API print these as one line; anything else is
a bug and keeps its traceback."""

from __future__ import annotations

from playscout.indexer.build import IndexExistsError
from playscout.indexer.corpus.errors import CorpusError
from playscout.indexer.embed.base import EmbeddingError
from playscout.indexer.search.base import IndexOpenError, SearchError
from playscout.tools.base import ToolError

USER_ERRORS: tuple[type[Exception], ...] = (
    CorpusError,
    EmbeddingError,
    IndexExistsError,
    IndexOpenError,
    SearchError,
    ToolError,
)
