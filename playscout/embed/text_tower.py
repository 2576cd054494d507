"""Client for the SVI-Bench reference's text-tower server (`tools/serve_internvideo2.py`): the
InternVideo2 text encoder that embeds default-mode clip queries into the space of the
release's video vectors.

Its API is not OpenAI's: `POST /embed` with `{"texts": [...]}` answers `{"embeddings": [[...]]}`
(`{"text": ...}` -> `{"embedding": [...]}` for one), and `GET /health` answers
`{"status", "model_loaded", "mock_mode}`. Its `--mock` mode returns random vectors (of the
wrong width, reference defect 15): `health` says so, and preflight refuses it, never a random
stand-in. Retries, timeouts and dimension checks are the OpenAI client's."""

from __future__ import annotations

from typing import Any

import httpx

from playscout.embed.embedder import EmbedderKind, EmbeddingError
from playscout.embed.openai_compat import OpenAIEmbedder


def tower_url(base_url: str, route: str) -> str:
    """The server's root (as given to `--video-query-url`, with or without a trailing /embed)
    joined with `route`."""
    url = base_url.strip().rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise EmbeddingError(f"text tower: base_url must start with http(s)://, got {base_url!r}")
    for suffix in ("/embed_batch", "/embed", "/health"):
        url = url.removesuffix(suffix)
    return url + route


class TextTowerEmbedder(OpenAIEmbedder):
    """`model` is the label the run records (the server names none): e.g. internvideo2-text."""

    kind: EmbedderKind = "text-tower"
    reply_shape = "a text-tower /embed response"

    @staticmethod
    def _endpoint(base_url: str) -> str:
        return tower_url(base_url, "/embed")

    def _payload(self, batch: list[str]) -> dict[str, Any]:
        return {"texts": batch}

    def _vectors(self, body: Any, batch: list[str], where: str) -> list[Any]:
        vectors = body.get("embeddings") if isinstance(body, dict) else None
        if not isinstance(vectors, list):
            raise EmbeddingError(f"{where} is not {self.reply_shape} (no 'embeddings' list)")
        if len(vectors) != len(batch):
            raise EmbeddingError(f"{where}: {len(vectors)} vectors for {len(batch)} texts")
        return vectors


def tower_health(base_url: str, timeout_s: float) -> dict[str, Any]:
    """`GET /health` of a text-tower server; raises EmbeddingError (one line) when it does not
    answer, answers something else, has no model loaded or serves random vectors."""
    url = tower_url(base_url, "/health")
    try:
        response = httpx.get(url, timeout=timeout_s)
    except httpx.HTTPError as e:
        raise EmbeddingError(f"{url} is not reachable ({type(e).__name__})") from None
    try:
        body = response.json() if response.status_code == 200 else None
    except ValueError:
        body = None
    if not isinstance(body, dict):
        raise EmbeddingError(f"{url} answered HTTP {response.status_code}, not a text-tower health")
    if body.get("mock_mode"):
        raise EmbeddingError(
            f"{url} serves random vectors (started with --mock): its queries would match nothing"
        )
    if not body.get("model_loaded"):
        raise EmbeddingError(f"{url} has no model loaded")
    return body
