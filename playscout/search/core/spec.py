"""What an index needs from an embedder, and how recorded specs are compared: one rule for
both backends, since both record a spec per vector channel at build time and check the query
embedders against it at open.

Imports only the embedder base module (no torch), so opening an index stays cheap."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from playscout.embed.embedder import RUNTIME_OPTIONS, Embedder
from playscout.search.backend_api import IndexOpenError

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


def spec_of(obj: Any) -> dict[str, Any]:
    """The recorded spec of an embedder or a precomputed vector source (`spec` is a method on
    the first and may be an attribute on the second)."""
    return spec_dict(obj.spec() if callable(getattr(obj, "spec", None)) else obj.spec)


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


EMBEDDER_KEYS = ("documents", "caption", "visual")


def check_embedders(manifest: Mapping[str, Any], given: Mapping[str, Any]) -> None:
    """Every backend's rule: a query embedder must embed like the one the index was built with
    (the visual channel compares model and dim only: its query side is a text tower; over
    vectors with no recorded model, such as the release's `embeds/videos`, only the dim can be
    checked, and what made them is the manifest's `identity`, which the stamp reads)."""
    unknown = set(given) - set(EMBEDDER_KEYS)
    if unknown:
        raise IndexOpenError(f"unknown embedder key(s) {sorted(unknown)}; use {EMBEDDER_KEYS}")
    for sport, info in manifest["sports"].items():
        for key, channel in info.get("channels", {}).items():
            emb = given.get(key)
            if emb is None:
                continue
            recorded = channel["spec"]
            if key == "visual" and recorded.get("kind") == "precomputed":
                why = None  # a text tower cannot share the vectors' (absent) model name
            else:
                why = spec_mismatch(recorded, spec_dict(emb.spec()), strict=key != "visual")
            if why is None and emb.dim != channel["dim"]:
                why = f"dim {channel['dim']} != {emb.dim}"
            if why:
                raise IndexOpenError(
                    f"{sport} {key} embedder does not match the index ({why}): "
                    "open with the embedder the index was built with, or rebuild"
                )
