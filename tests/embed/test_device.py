"""One device setting for every model playscout runs (embed/device.py): names, resolution,
and vectors through the device path equal the ones made before it existed (CPU) and the CPU's
(GPU, `gpu` marker)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from playscout.config import ConfigError, Settings
from playscout.embed import (
    TINY_MODEL,
    EmbeddingError,
    MiniLMEmbedder,
    OpenClipEmbedder,
    make_tiny_weights,
)
from playscout.embed import device as device_module
from playscout.embed.device import (
    CPU_PRECISION_ENV,
    resolve_device,
    resolve_placement,
    with_device,
)
from playscout.embed.minilm import PACKAGE_NAME, resolve_model_dir

TEXTS = [
    "Walker pulls up from the left wing and drains a three",
    "a red card for a late tackle",
    "the goalie kicks the puck away from the crease",
    "timeout on the floor",
]


def _cuda() -> bool:
    import torch

    return bool(torch.cuda.is_available())


gpu = pytest.mark.gpu


def rowwise_cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = a / np.linalg.norm(a, axis=1, keepdims=True)
    b = b / np.linalg.norm(b, axis=1, keepdims=True)
    return np.sum(a * b, axis=1)


def test_device_names_resolve_or_fail_in_one_line() -> None:
    assert resolve_device("cpu") == "cpu"
    assert resolve_device("auto") == ("cuda:0" if _cuda() else "cpu")
    cpu = resolve_placement("cpu")
    assert (cpu.device, cpu.dtype, cpu.record()) == (
        "cpu",
        "float32",
        {"device": "cpu", "dtype": "float32"},
    )
    for bad in ("gpu", "cuda:x", "CUDA", ""):
        with pytest.raises(EmbeddingError, match="is not one of auto, cpu, cuda, cuda:N"):
            resolve_device(bad)
    if not _cuda():
        with pytest.raises(EmbeddingError, match="'cuda:1': torch sees no CUDA device"):
            resolve_device("cuda:1")


def test_with_device_touches_only_local_models() -> None:
    spec = {"kind": "minilm", "model": PACKAGE_NAME}
    assert with_device(spec, "cpu") == {**spec, "options": {"device": "cpu"}}
    served = {"kind": "openai", "model": "m", "options": {"base_url": "http://x/v1"}}
    assert with_device(served, "cuda") == served
    assert with_device(None, "cpu") is None


def test_settings_validate_the_device_names() -> None:
    s = Settings.load(overrides={"embed": {"device": "cuda:1"}, "search": {"device": "cpu"}})
    assert (s.embed.device, s.search.device) == ("cuda:1", "cpu")
    assert Settings.load().embed.device == "auto"
    with pytest.raises(ConfigError, match=r"setting embed\.device"):
        Settings.load(overrides={"embed": {"device": "gpu0"}})


def test_minilm_on_cpu_equals_the_bare_cpu_model() -> None:
    """The device path at device="cpu" gives the vectors the pre-device code gave: a bare
    SentenceTransformer on the CPU, fp32, normalised."""
    from sentence_transformers import SentenceTransformer

    bare = SentenceTransformer(str(resolve_model_dir(PACKAGE_NAME)), device="cpu")
    want = bare.encode(TEXTS, normalize_embeddings=True, convert_to_numpy=True)
    emb = MiniLMEmbedder(device="cpu", batch_size=2, cpu_precision="float32")
    assert emb.placement.record() == {"device": "cpu", "dtype": "float32"}
    assert emb.spec().options == {"batch_size": 2}  # no device: read anywhere
    assert rowwise_cosine(emb.embed_documents(TEXTS), want).min() >= 0.9999


PUBLISHED = Path(__file__).parents[1] / "eval" / "published"


def published_texts(limit: int = 96) -> list[str]:
    """Sentences from the published task samples (captions, questions, instructions): text
    we did not write, of the lengths a corpus has."""
    import json

    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str) and 20 <= len(value) <= 2000 and " " in value:
            found.append(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for path in sorted(PUBLISHED.glob("*.json")):
        walk(json.loads(path.read_text()))
    return list(dict.fromkeys(found))[:limit]


def test_cpu_bf16_autocast_rows_equal_fp32() -> None:
    """bf16 matrix products on the CPU (the default where the CPU has them natively) give the
    fp32 vectors row by row, on published texts; the manifest's record says it ran."""
    texts = published_texts()
    assert len(texts) >= 40
    exact = MiniLMEmbedder(device="cpu", cpu_precision="float32").embed_documents(texts)
    bf16 = MiniLMEmbedder(device="cpu", cpu_precision="bfloat16")
    assert bf16.placement.record() == {"device": "cpu", "dtype": "float32", "autocast": "bfloat16"}
    got = bf16.embed_documents(texts)
    assert got.dtype == np.float32
    cosine = rowwise_cosine(got, exact)
    assert cosine.min() >= 0.9999
    assert not np.array_equal(got, exact)  # the products did run in bf16
    # queries stay on the fp32 numpy encoder: a bf16 index is searched with fp32 queries
    np.testing.assert_array_equal(
        bf16.embed_queries(texts[:3]),
        MiniLMEmbedder(cpu_precision="float32").embed_queries(texts[:3]),
    )


@pytest.mark.parametrize("native", [True, False])
def test_cpu_precision_auto_follows_the_cpu(native: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CPU_PRECISION_ENV, raising=False)
    monkeypatch.setattr(device_module, "cpu_has_native_bf16", lambda: native)
    auto = MiniLMEmbedder(device="cpu").placement
    assert auto.autocast == ("bfloat16" if native else None)
    monkeypatch.setenv(CPU_PRECISION_ENV, "float32")
    assert MiniLMEmbedder(device="cpu").placement.autocast is None
    assert MiniLMEmbedder(device="cpu", cpu_precision="auto").placement.autocast == auto.autocast
    monkeypatch.setenv(CPU_PRECISION_ENV, "fp8")
    with pytest.raises(EmbeddingError, match=f"{CPU_PRECISION_ENV} 'fp8' is not one of"):
        MiniLMEmbedder(device="cpu")
    with pytest.raises(EmbeddingError, match="cpu_precision 'half' is not one of"):
        MiniLMEmbedder(device="cpu", cpu_precision="half")


def test_an_fp16_checkpoint_runs_in_the_placements_dtype_on_the_cpu(tmp_path: Path) -> None:
    """Checkpoints are often saved in fp16; transformers loads a checkpoint in its own dtype,
    so the embedder casts to what its placement says (fp32 weights on the CPU, bf16 products
    under autocast where the CPU has them) and gives the fp32 checkpoint's rows."""
    from safetensors.numpy import load_file, save_file

    source = resolve_model_dir(PACKAGE_NAME)
    half = tmp_path / "minilm-fp16"
    shutil.copytree(source, half)
    weights = load_file(half / "model.safetensors")
    save_file(
        {k: v.astype(np.float16) if v.dtype == np.float32 else v for k, v in weights.items()},
        half / "model.safetensors",
    )
    ours = MiniLMEmbedder(model=str(half), device="cpu")
    assert ours.placement.dtype == "float32"
    rows = ours.embed_documents(TEXTS)
    full = MiniLMEmbedder(device="cpu", cpu_precision=ours.placement.autocast or "float32")
    assert rowwise_cosine(rows, full.embed_documents(TEXTS)).min() >= 0.999


@pytest.fixture(scope="module")
def weights(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_tiny_weights(tmp_path_factory.mktemp("w") / "tiny.pt", seed=3)


def test_open_clip_text_tower_on_cpu_is_unchanged(weights: Path) -> None:
    """The text tower is untouched by the device path: two CPU embedders agree exactly, and
    the spec carries no device."""
    a = OpenClipEmbedder(TINY_MODEL, pretrained=str(weights), device="cpu")
    assert a.placement.dtype == "float32" and "device" not in a.spec().options
    b = OpenClipEmbedder(
        TINY_MODEL, pretrained=str(weights), device="auto" if not _cuda() else "cpu"
    )
    np.testing.assert_array_equal(a.embed_queries(TEXTS), b.embed_queries(TEXTS))


@gpu
@pytest.mark.skipif(not _cuda(), reason="needs CUDA")
def test_minilm_gpu_fp16_vectors_equal_the_cpu_ones() -> None:
    cpu = MiniLMEmbedder(device="cpu").embed_documents(TEXTS * 64)
    gpu_emb = MiniLMEmbedder(device="cuda")
    assert gpu_emb.placement.record() == {"device": "cuda:0", "dtype": "float16"}
    assert rowwise_cosine(gpu_emb.embed_documents(TEXTS * 64), cpu).min() >= 0.999


@gpu
@pytest.mark.skipif(not _cuda(), reason="needs CUDA")
def test_open_clip_gpu_fp16_vectors_equal_the_cpu_ones(weights: Path) -> None:
    rng = np.random.default_rng(0)
    frames = [rng.integers(0, 256, (180, 320, 3), dtype=np.uint8) for _ in range(40)]
    cpu = OpenClipEmbedder(TINY_MODEL, pretrained=str(weights), device="cpu")
    cuda = OpenClipEmbedder(TINY_MODEL, pretrained=str(weights), device="cuda")
    assert cuda.placement.dtype == "float16" and cuda.batch_size == 256
    assert rowwise_cosine(cuda.embed_images(frames), cpu.embed_images(frames)).min() >= 0.999
    assert rowwise_cosine(cuda.embed_queries(TEXTS), cpu.embed_queries(TEXTS)).min() >= 0.999


def test_streams_run_side_by_side_on_one_core_each() -> None:
    """run_streams: every part in its own thread, torch on one core there, results in part
    order, and the process's thread count restored afterwards."""
    import threading

    import torch

    from playscout.embed.device import run_streams

    before = torch.get_num_threads()
    seen: list[tuple[str, int]] = []
    barrier = threading.Barrier(3, timeout=30)  # all three are running at once, or this fails

    def work(i: int, part: str) -> str:
        seen.append((threading.current_thread().name, torch.get_num_threads()))
        barrier.wait()
        return part.upper()

    assert run_streams(["a", "b", "c"], work) == ["A", "B", "C"]
    assert len({name for name, _ in seen}) == 3 and {n for _, n in seen} == {1}
    assert torch.get_num_threads() == before


def test_minilm_streams_give_the_one_pass_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """Texts split across CPU streams come back in their own rows, equal to one pass's."""
    import playscout.embed.minilm as minilm_module

    texts = published_texts(40)
    emb = MiniLMEmbedder(device="cpu", batch_size=4, cpu_precision="float32")
    monkeypatch.setattr(minilm_module, "cpu_streams", lambda placement, batches: 1)
    one_pass = emb.embed_documents(texts)
    monkeypatch.setattr(minilm_module, "cpu_streams", lambda placement, batches: 3)
    streamed = emb.embed_documents(texts)
    assert rowwise_cosine(streamed, one_pass).min() >= 0.99999
    # each row is its own text's, not a neighbour's: the nearest one-pass row is itself
    assert (np.argmax(streamed @ one_pass.T, axis=1) == np.arange(len(texts))).all()
