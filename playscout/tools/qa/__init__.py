"""document_qa and video_qa (paper Figs. 44-46): ask a model one question about each of a few
documents or clips, concurrently, and render the answers compactly. One module per job:
`args` (the tools' arguments), `roles` (the models they call), `fanout` (the shared steps),
`results` (items and the observation), `document`, `video` and `oracle` (the tools)."""

from playscout.tools.qa.args import DocumentQAArgs, VideoQAArgs
from playscout.tools.qa.document import NO_DOC_LLM, document_qa, document_qa_async
from playscout.tools.qa.oracle import (
    NO_CAPTION_LLM,
    NO_CAPTIONS,
    video_qa_oracle,
    video_qa_oracle_async,
)
from playscout.tools.qa.results import QAItem, QAResult, SentFrames, render_qa
from playscout.tools.qa.video import NO_CORPUS, NO_VLM, video_qa, video_qa_async

__all__ = [
    "NO_CAPTIONS",
    "NO_CAPTION_LLM",
    "NO_CORPUS",
    "NO_DOC_LLM",
    "NO_VLM",
    "DocumentQAArgs",
    "QAItem",
    "QAResult",
    "SentFrames",
    "VideoQAArgs",
    "document_qa",
    "document_qa_async",
    "render_qa",
    "video_qa",
    "video_qa_async",
    "video_qa_oracle",
    "video_qa_oracle_async",
]
