"""The errors a user can cause. The CLI and the API print these as one line; anything else is
a bug and keeps its traceback."""

from __future__ import annotations

import functools


@functools.cache
def user_error_types() -> tuple[type[Exception], ...]:
    """Imported on first use, so that a command that fails early does not load the agent."""
    from playscout.agent.runner import AgentError
    from playscout.agent.trajectory import TrajectoryError
    from playscout.clients.base import ModelError
    from playscout.indexer.build import IndexExistsError
    from playscout.indexer.corpus.errors import CorpusError
    from playscout.indexer.embed.base import EmbeddingError
    from playscout.indexer.media.frames import MediaError
    from playscout.indexer.search.base import IndexOpenError, SearchError
    from playscout.indexer.video.errors import VideoError
    from playscout.tools.errors import ToolError

    return (
        AgentError,
        CorpusError,
        EmbeddingError,
        IndexExistsError,
        IndexOpenError,
        MediaError,
        ModelError,
        SearchError,
        ToolError,
        TrajectoryError,
        VideoError,
    )


def is_user_error(error: BaseException) -> bool:
    return isinstance(error, user_error_types())
