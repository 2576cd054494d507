"""Build an embedder from its spec, as recorded in an index manifest or written in config."""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError

from playscout.embed.embedder import Embedder, EmbedderSpec, EmbeddingError

# kind -> (module, class): only the kind being built is imported (a MiniLM query embedder
# must not load httpx, FlagEmbedding or open_clip).
_BUILDERS = {
    "minilm": ("playscout.embed.minilm", "MiniLMEmbedder"),
    "bge-m3": ("playscout.embed.bge_m3", "BGEM3Embedder"),
    "openai": ("playscout.embed.openai_compat", "OpenAIEmbedder"),
    "text-tower": ("playscout.embed.text_tower", "TextTowerEmbedder"),
    "precomputed": ("playscout.embed.precomputed", "PrecomputedVectors"),
    "open_clip": ("playscout.embed.open_clip", "OpenClipEmbedder"),
}


def _builder(kind: str) -> Callable[..., Embedder]:
    module, name = _BUILDERS[kind]
    builder: Callable[..., Embedder] = getattr(importlib.import_module(module), name)
    return builder


def make_embedder(spec: EmbedderSpec | Mapping[str, Any]) -> Embedder:
    """The built embedder must give `spec.dim`; a mismatch raises instead of indexing garbage.

    A mapping may leave out `dim` (config files): the model's own dim is then used.
    """
    if isinstance(spec, EmbedderSpec):
        kind, model, dim, options = spec.kind, spec.model, spec.dim, dict(spec.options)
    else:
        raw = dict(spec)
        dim = raw.pop("dim", None)
        try:
            parsed = EmbedderSpec(**raw, dim=dim if dim is not None else 1)
        except ValidationError as e:
            first = e.errors()[0]
            where = ".".join(str(x) for x in first["loc"])
            raise EmbeddingError(f"invalid embedder spec: {where}: {first['msg']}") from e
        kind, model, options = parsed.kind, parsed.model, dict(parsed.options)
    cls = _builder(kind)
    params = inspect.signature(cls).parameters
    allowed = sorted(n for n, p in params.items() if p.kind is p.KEYWORD_ONLY and n != "dim")
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise EmbeddingError(
            f"unknown option(s) {unknown} for embedder kind {kind!r}; allowed: {allowed}"
        )
    return cls(model, dim=dim, **options)
