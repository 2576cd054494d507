"""Client for any OpenAI-compatible `/v1/embeddings` server (vLLM, TEI, hosted APIs).

Heavy models (BGE-M3 on a GPU box, the InternVideo2 text tower) are served, not loaded in-process.
Failures are errors, never random vectors: retries are bounded and only for what can heal on its
own (connection errors, timeouts, 429, 5xx); other 4xx mean the request itself is wrong.
"""

from __future__ import annotations

import functools
import os
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

import httpx
import numpy as np

from playscout.embed.embedder import (
    EmbedderKind,
    EmbedderSpec,
    EmbeddingError,
    check_dim,
    check_texts,
    normalize_rows,
)
from playscout.errors import one_line

PROBE_TEXT = "dimension probe"


def endpoint_url(base_url: str) -> str:
    """`base_url` is the API root as for the OpenAI SDK (…/v1); a full …/embeddings URL is kept."""
    url = base_url.strip().rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise EmbeddingError(
            f"OpenAI embedder: base_url must start with http(s)://, got {base_url!r}"
        )
    return url if url.endswith("/embeddings") else url + "/embeddings"


def _is_retryable(status: int) -> bool:
    return status == 429 or status >= 500


_one_line = functools.partial(one_line, limit=200, ellipsis="…")  # server error details


def _error_detail(response: httpx.Response) -> str:
    """Prefer the OpenAI-style {"error": {"message": ...}} text over the raw body."""
    try:
        body = response.json()
        err = body.get("error") if isinstance(body, dict) else None
        if isinstance(err, dict) and err.get("message"):
            return _one_line(str(err["message"]))
        if isinstance(err, str):
            return _one_line(err)
    except ValueError:
        pass
    return _one_line(response.text)


def _retry_after_s(response: httpx.Response) -> float | None:
    try:
        return float(response.headers.get("retry-after", ""))
    except ValueError:
        return None


class OpenAIEmbedder:
    """Batched, retried, order-checked calls; one thread-safe httpx.Client per embedder."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str,
        dim: int | None = None,
        api_key: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        batch_size: int = 64,
        timeout_s: float = 30.0,
        max_retries: int = 4,
        backoff_base_s: float = 0.5,
        backoff_max_s: float = 8.0,
        query_prefix: str = "",
        document_prefix: str = "",
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if batch_size < 1 or max_retries < 0 or timeout_s <= 0:
            raise EmbeddingError(
                "OpenAI embedder: need batch_size >= 1, max_retries >= 0 and timeout_s > 0"
            )
        self.model = model
        self.base_url = base_url
        self.url = self._endpoint(base_url)
        self.api_key_env = api_key_env
        self.batch_size = batch_size
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self.query_prefix = query_prefix
        self.document_prefix = document_prefix
        self._sleep = sleep
        key = api_key if api_key is not None else os.environ.get(api_key_env)
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._client = httpx.Client(
            headers=headers, timeout=httpx.Timeout(timeout_s), transport=transport
        )
        self._expected_dim = dim
        if dim is None:  # discover it once, so a bad URL or model fails here, not mid-index
            dim = int(self._request([PROBE_TEXT]).shape[1])
        self.dim = dim

    kind: EmbedderKind = "openai"
    reply_shape = "an OpenAI embeddings response"

    @staticmethod
    def _endpoint(base_url: str) -> str:
        return endpoint_url(base_url)

    def _payload(self, batch: list[str]) -> dict[str, Any]:
        return {"model": self.model, "input": batch, "encoding_format": "float"}

    def spec(self) -> EmbedderSpec:
        """The API key itself is never recorded, only where it is read from."""
        return EmbedderSpec(
            kind=self.kind,
            model=self.model,
            dim=self.dim,
            options={
                "base_url": self.base_url,
                "api_key_env": self.api_key_env,
                "batch_size": self.batch_size,
                "timeout_s": self.timeout_s,
                "max_retries": self.max_retries,
                "query_prefix": self.query_prefix,
                "document_prefix": self.document_prefix,
            },
        )

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> OpenAIEmbedder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, self.document_prefix, "embed_documents")

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, self.query_prefix, "embed_queries")

    def _embed(self, texts: Sequence[str], prefix: str, where: str) -> np.ndarray:
        items = [prefix + t for t in check_texts(texts, f"OpenAI {where}")]
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [
            self._request(items[i : i + self.batch_size])
            for i in range(0, len(items), self.batch_size)
        ]
        return np.concatenate(parts, axis=0)

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        """Exponential with equal jitter; a server's Retry-After is honoured up to the cap."""
        base = min(self.backoff_max_s, self.backoff_base_s * 2 ** (attempt - 1))
        wait = base / 2 + random.uniform(0, base / 2)
        if retry_after is not None:
            wait = max(wait, retry_after)
        return min(wait, self.backoff_max_s)

    def _request(self, batch: list[str]) -> np.ndarray:
        payload = self._payload(batch)
        attempts = self.max_retries + 1
        last = ""
        for attempt in range(1, attempts + 1):
            retry_after: float | None = None
            try:
                response = self._client.post(self.url, json=payload)
            except httpx.TimeoutException as e:
                last = f"timed out after {self.timeout_s:g}s ({type(e).__name__})"
            except (httpx.ConnectError, httpx.RemoteProtocolError) as e:
                last = f"connection failed ({type(e).__name__}: {_one_line(str(e))})"
            except httpx.HTTPError as e:
                raise EmbeddingError(
                    f"embedding request to {self.url} failed: {type(e).__name__}: {_one_line(str(e))}"
                ) from e
            else:
                if response.status_code == 200:
                    return self._parse(response, batch)
                last = f"HTTP {response.status_code}: {_error_detail(response)}"
                if not _is_retryable(response.status_code):
                    raise EmbeddingError(f"embedding request to {self.url} failed: {last}")
                retry_after = _retry_after_s(response)
            if attempt < attempts:
                self._sleep(self._backoff(attempt, retry_after))
        raise EmbeddingError(
            f"embedding request to {self.url} failed after {attempts} attempts: {last}"
        )

    def _vectors(self, body: Any, batch: list[str], where: str) -> list[Any]:
        """The reply's vectors in request order (OpenAI: `data[].embedding` by `index`)."""
        try:
            pairs = [(int(item["index"]), item["embedding"]) for item in body["data"]]
        except (KeyError, TypeError) as e:
            raise EmbeddingError(
                f"{where} is not {self.reply_shape} ({type(e).__name__}: {e})"
            ) from e
        indices = sorted(i for i, _ in pairs)
        if indices != list(range(len(batch))):
            raise EmbeddingError(
                f"{where}: expected indices 0..{len(batch) - 1}, got {len(pairs)} items "
                f"with indices {indices[:10]}"
            )
        pairs.sort(key=lambda p: p[0])  # servers may answer out of order; `index` is the truth
        return [v for _, v in pairs]

    def _parse(self, response: httpx.Response, batch: list[str]) -> np.ndarray:
        where = f"embedding response from {self.url}"
        try:
            body: Any = response.json()
        except ValueError as e:
            raise EmbeddingError(f"{where} is not {self.reply_shape} (not JSON: {e})") from e
        vectors = self._vectors(body, batch, where)
        if any(not isinstance(v, list) for v in vectors):
            raise EmbeddingError(f"{where}: embeddings are not float lists (base64 not supported)")
        dims = {len(v) for v in vectors}
        if len(dims) != 1:
            raise EmbeddingError(f"{where}: vectors of different lengths {sorted(dims)}")
        got = dims.pop()
        expected = (
            self._expected_dim if self._expected_dim is not None else getattr(self, "dim", None)
        )
        check_dim(expected, got, f"{where} (model {self.model})")
        return normalize_rows(np.asarray(vectors, dtype=np.float32), got, where)
