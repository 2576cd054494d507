"""open_clip image/text towers on the tiny, randomly initialised "playscout-tiny" model.

Random weights make similarities meaningless, so these tests pin the code path: determinism,
shapes, normalisation, weights identity and the one-line errors, not retrieval quality."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from playscout.embed import (
    TINY_MODEL,
    EmbeddingError,
    OpenClipEmbedder,
    make_embedder,
    make_tiny_weights,
)
from playscout.indexer.build import parse_embedder


@pytest.fixture(scope="module")
def weights(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_tiny_weights(tmp_path_factory.mktemp("clip") / "tiny-seed0.pt", seed=0)


@pytest.fixture(scope="module")
def clip(weights: Path) -> OpenClipEmbedder:
    return OpenClipEmbedder(TINY_MODEL, pretrained=str(weights), batch_size=4)


def frames(n: int, seed: int = 0, size: tuple[int, int] = (48, 80)) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, (*size, 3), dtype=np.uint8) for _ in range(n)]


def one_line_error(excinfo: pytest.ExceptionInfo[EmbeddingError]) -> str:
    text = str(excinfo.value)
    assert text and "\n" not in text, text
    return text


def test_tiny_weights_are_deterministic_per_seed(tmp_path: Path, weights: Path) -> None:
    import torch

    again = torch.load(make_tiny_weights(tmp_path / "a.pt", seed=0), weights_only=True)
    other = torch.load(make_tiny_weights(tmp_path / "b.pt", seed=1), weights_only=True)
    first = torch.load(weights, weights_only=True)
    assert first.keys() == again.keys() == other.keys()
    assert all(torch.equal(first[k], again[k]) for k in first)
    assert not all(torch.equal(first[k], other[k]) for k in first)


def test_reloaded_weights_give_identical_vectors(
    tmp_path: Path, clip: OpenClipEmbedder, weights: Path
) -> None:
    copy = make_tiny_weights(tmp_path / "copy.pt", seed=0)  # another file, same content
    reloaded = OpenClipEmbedder(TINY_MODEL, pretrained=str(copy))
    assert reloaded.spec().options["weights_sha256"] == clip.spec().options["weights_sha256"]
    imgs, texts = frames(3), ["a dunk", "a corner kick"]
    np.testing.assert_array_equal(reloaded.embed_images(imgs), clip.embed_images(imgs))
    np.testing.assert_array_equal(reloaded.embed_queries(texts), clip.embed_queries(texts))
    other = OpenClipEmbedder(TINY_MODEL, pretrained=str(make_tiny_weights(tmp_path / "s1.pt", 1)))
    assert not np.allclose(other.embed_queries(texts), clip.embed_queries(texts))


def test_shapes_dtype_and_unit_rows(clip: OpenClipEmbedder) -> None:
    imgs = frames(10) + frames(1, seed=5, size=(200, 120)) + frames(1, seed=6, size=(7, 9))
    vi = clip.embed_images(imgs)  # 12 frames, batch_size 4, mixed sizes
    vq = clip.embed_queries([f"query {i}: a fast break layup" for i in range(6)])
    for out, n in ((vi, 12), (vq, 6)):
        assert out.shape == (n, 64) and out.dtype == np.float32
        np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5)
    assert clip.dim == 64
    assert clip.embed_images([]).shape == (0, 64) and clip.embed_queries([]).shape == (0, 64)


def test_batching_does_not_change_vectors(clip: OpenClipEmbedder) -> None:
    imgs = frames(6, seed=2)
    together = clip.embed_images(imgs)
    alone = np.concatenate([clip.embed_images([f]) for f in imgs])
    np.testing.assert_allclose(together, alone, atol=1e-5)
    assert not np.allclose(together[0], together[1], atol=1e-3)  # different frames differ


def test_text_tower_serves_queries_and_documents(clip: OpenClipEmbedder) -> None:
    text = ["a goalkeeper saves a penalty"]
    np.testing.assert_array_equal(clip.embed_queries(text), clip.embed_documents(text))
    with pytest.raises(EmbeddingError, match="one str"):
        clip.embed_queries("a goal")


@pytest.mark.parametrize(
    "bad",
    [
        np.zeros((8, 8), np.uint8),  # grey
        np.zeros((8, 8, 3), np.float32),  # not uint8
        np.zeros((8, 8, 4), np.uint8),  # RGBA
        np.zeros((0, 8, 3), np.uint8),  # empty
    ],
)
def test_bad_frames_are_refused(clip: OpenClipEmbedder, bad: np.ndarray) -> None:
    with pytest.raises(EmbeddingError, match="frame 1 must be an HxWx3 uint8") as e:
        clip.embed_images([frames(1)[0], bad])
    one_line_error(e)


def test_one_frame_instead_of_a_list_is_refused(clip: OpenClipEmbedder) -> None:
    with pytest.raises(EmbeddingError, match="got one HxWx3 array"):
        clip.embed_images(frames(1)[0])  # type: ignore[arg-type]


def test_spec_rebuilds_the_same_model(clip: OpenClipEmbedder, weights: Path) -> None:
    spec = clip.spec()
    assert spec.kind == "open_clip" and spec.model == TINY_MODEL and spec.dim == 64
    assert spec.options["pretrained"] == str(weights.resolve())
    rebuilt = make_embedder(spec.model_dump(mode="json"))
    assert isinstance(rebuilt, OpenClipEmbedder)
    np.testing.assert_array_equal(rebuilt.embed_queries(["x"]), clip.embed_queries(["x"]))
    from_config = make_embedder(
        {"kind": "open_clip", "model": TINY_MODEL, "options": {"pretrained": str(weights)}}
    )
    assert from_config.dim == 64


def test_changed_weights_file_is_refused(tmp_path: Path, clip: OpenClipEmbedder) -> None:
    spec = clip.spec().model_dump(mode="json")
    spec["options"]["pretrained"] = str(make_tiny_weights(tmp_path / "w.pt", seed=3))
    with pytest.raises(EmbeddingError, match="are not the ones recorded") as e:
        make_embedder(spec)
    one_line_error(e)


def test_missing_weights_file_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingError, match="does not exist") as e:
        OpenClipEmbedder(TINY_MODEL, pretrained=str(tmp_path / "nope.pt"))
    one_line_error(e)
    with pytest.raises(EmbeddingError, match="needs pretrained=PATH") as e:
        OpenClipEmbedder(TINY_MODEL)
    one_line_error(e)


@pytest.mark.parametrize(
    ("model", "pretrained"),
    [
        ("ViT-B-32", "openai"),
        ("ViT-B-32", "laion2b_s34b_b79k"),
        (TINY_MODEL, "hf-hub:timm/ViT-B-32"),
    ],
)
def test_hub_tags_are_refused_without_downloading(model: str, pretrained: str) -> None:
    with pytest.raises(EmbeddingError, match="is a hub tag, not a file") as e:
        OpenClipEmbedder(model, pretrained=pretrained)
    one_line_error(e)


def test_bad_architectures_are_refused(weights: Path) -> None:
    for model, why in [
        ("hf-hub:laion/CLIP-ViT-B-32", "never a hub"),
        ("no-such-arch", "has no architecture"),
        ("ViT-B-16-SigLIP", "needs Hugging Face hub files"),
    ]:
        with pytest.raises(EmbeddingError, match=why) as e:
            OpenClipEmbedder(model, pretrained=str(weights))
        one_line_error(e)


def test_unreadable_weights_and_wrong_dim(tmp_path: Path, weights: Path) -> None:
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a checkpoint")
    with pytest.raises(EmbeddingError, match="cannot load open_clip") as e:
        OpenClipEmbedder(TINY_MODEL, pretrained=str(junk))
    one_line_error(e)
    with pytest.raises(EmbeddingError, match="dimension mismatch"):
        OpenClipEmbedder(TINY_MODEL, pretrained=str(weights), dim=512)


def test_parse_embedder_syntax() -> None:
    assert parse_embedder("open_clip:ViT-B-32@/w/clip.pt") == {
        "kind": "open_clip",
        "model": "ViT-B-32",
        "options": {"pretrained": "/w/clip.pt"},
    }
    for bad in ("open_clip:ViT-B-32", "open_clip:@/w.pt", "open_clip:ViT-B-32@"):
        with pytest.raises(EmbeddingError, match="is not of the form open_clip:ARCH@WEIGHTS"):
            parse_embedder(bad)


def _run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=90, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_import_playscout_stays_light_and_fixes_torchvision() -> None:
    """`import playscout` imports no torch, yet makes a later torchvision import (here through
    open_clip) work with a CUDA torchvision on CPU torch."""
    assert _run("import sys, playscout; print('torch' in sys.modules)").strip() == "False"
    out = _run(
        "import playscout, open_clip, torchvision\n"
        "print(open_clip.create_model is not None, torchvision.__version__ != '')"
    )
    assert out.strip() == "True True"
    # Calling the shim directly first (MiniLM does) must not deadlock with the hook.
    out = _run(
        "import playscout\n"
        "from playscout.embed._torch_shim import apply_torchvision_shim\n"
        "apply_torchvision_shim()\n"
        "import torchvision\n"
        "print('ok')"
    )
    assert out.strip() == "ok"
