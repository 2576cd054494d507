"""The model endpoints tools call ("roles"), declared once each: a tool names the roles it
calls (`tools.declare.tool(roles=...)`), preflight probes them, `/readyz` reports them and the
CLI takes `--<flag>-url/--<flag>-model` for each, all read from here. A role's endpoint is a
QASettings field. This module imports only config, so the CLI can read the roles at start-up
without loading any tool; so every role is declared here (tests/tools/test_registry.py fails
for one declared in a tool's module, which the CLI would not see)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from playscout.config import ModelEndpoint, QASettings
from playscout.errors import PlayscoutError
from playscout.registry import Registry


class RoleError(PlayscoutError, ValueError):
    """A role declared wrongly (no such QASettings field, a flag or setting used twice), or
    an unknown role's name."""


@dataclass(frozen=True)
class ModelRole:
    name: str  # preflight's name for its check: "video_qa"
    setting: str  # the QASettings field holding the endpoint: "vlm"
    what: str  # preflight's words: "video_qa's VLM"
    flag: str  # the CLI's --<flag>-url / --<flag>-model
    help: str  # the CLI flags' words: "video_qa's vision-language model"
    status: str  # its key under /readyz "models"
    offline: bool = True  # an offline reader answers when it is not configured
    noun: str = "model"  # what preflight calls it when it must be configured: "VLM"
    kind: Literal["chat", "embedding"] = "chat"  # embedding: a query tower, not a chat client

    @property
    def path(self) -> str:
        return f"qa.{self.setting}"

    def endpoint(self, qa: QASettings) -> ModelEndpoint:
        endpoint: ModelEndpoint = getattr(qa, self.setting)
        return endpoint


ROLES: Registry[ModelRole] = Registry("model role", unknown=RoleError)
"""Every declared role by name, in declaration order."""


def model_role(
    name: str,
    setting: str,
    what: str,
    *,
    flag: str,
    help: str,
    status: str,
    offline: bool = True,
    noun: str = "model",
    kind: Literal["chat", "embedding"] = "chat",
) -> ModelRole:
    """Declares the model endpoint `qa.<setting>` (a QASettings field) under `name`; `kind`
    embedding: a query tower the index is opened with (runtime), not a chat client."""
    if setting not in QASettings.model_fields:
        raise RoleError(f"model role {name!r}: QASettings has no field {setting!r}")
    role = ModelRole(name, setting, what, flag, help, status, offline, noun, kind)
    if any(r.name != name and (r.flag == flag or r.setting == setting) for r in ROLES.values()):
        raise RoleError(f"model role {name!r}: its flag or setting is already declared")
    return ROLES.add(name, role)


DOCUMENT_LLM = model_role(
    "document_qa",
    "document_llm",
    "document_qa's model",
    flag="doc-llm",
    help="document_qa's model",
    status="document_qa",
)
VLM = model_role(
    "video_qa",
    "vlm",
    "video_qa's VLM",
    flag="vlm",
    help="video_qa's vision-language model",
    status="vlm",
    offline=False,  # nothing offline can honestly look at pixels
    noun="VLM",
)
CAPTION_LLM = model_role(
    "caption_qa",
    "caption_llm",
    "video_qa's model in oracle mode",
    flag="caption-llm",
    help="video_qa's model in oracle mode (reads captions)",
    status="caption_llm",
)
VIDEO_QUERY = model_role(
    "video_query",
    "video_query",
    "search_videos' video query tower",
    flag="video-query",
    help="search_videos' text tower for the index's video vectors (the reference's "
    "serve_internvideo2.py; qa.video_query.api=openai for /v1/embeddings)",
    status="video_query",
    offline=False,  # nothing offline embeds a query into InternVideo2's space
    noun="video query tower",
    kind="embedding",
)
