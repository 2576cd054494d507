"""What the index needs from an embedder, and how recorded specs are compared.

Imports only the embedder base module (no torch), so opening an index stays cheap."""

from __future__ import annotations

from typing import Any

from playscout.indexer.embed.base import RUNTIME_OPTIONS, Embedder

# One embedder protocol and one list of run-only options for the whole project.
QueryEmbedder = Embedder
DocumentEmbedder = Embedder


def spec_dict(spec: Any) -> dict[str, Any]:
    """An EmbedderSpec (pydantic) or plain mapping as a JSON-able dict."""
    if hasattr(spec, "model_dump"):
        return dict(spec.model_dump(mode="json"))
    if isinstance(spec, dict):
        return dict(spec)
    raise TypeError(f"embedder spec {spec!r} is neither a pydantic model nor a dict")


def spec_identity(spec: dict[str, Any]) -> dict[str, Any]:
    options = {k: v for k, v in (spec.get("options") or {}).items() if k not in RUNTIME_OPTIONS}
    return {
        "kind": spec.get("kind"),
        "model": spec.get("model"),
        "dim": spec.get("dim"),
        "options": options,
    }


def spec_mismatch(
    recorded: dict[str, Any], given: dict[str, Any], strict: bool = True
) -> str | None:
    """A one-line description of how two specs differ, or None when they embed alike.

    Non-strict (the visual channel) compares model and dim only: the query side is a text tower
    whose kind/options differ from the video tower that produced the stored vectors."""
    a, b = spec_identity(recorded), spec_identity(given)
    keys = list(a) if strict else ["model", "dim"]
    diffs = [f"{key} {a[key]!r} != {b[key]!r}" for key in keys if a[key] != b[key]]
    return "; ".join(diffs) or None
