"""open_clip (CLIP) embedder: the image tower embeds video frames, the text tower embeds queries.

Clip vectors made by `embed_images` (see playscout.indexer.video.visual) and query vectors made by
`embed_queries` share one space, so a default-mode clip search embeds its query with the text
tower of the very weights that embedded the frames.

Weights always come from a local file (`pretrained=PATH`): open_clip hub tags ("openai",
"laion2b_s34b_b79k", "hf-hub:...") are refused, nothing is downloaded. The spec records the
weights' SHA-256 (of the tensors, not the file bytes), and a later load checks it, so an index
is never queried with other weights.

No CLIP weights ship offline, so `TINY_MODEL` ("playscout-tiny", a ~4M-parameter ViT/text
transformer) plus `make_tiny_weights` give a deterministic, *randomly initialised* model. Its
similarities are meaningless; it exists only to exercise the real code path (preprocessing,
both towers, the index and the query side) in tests and demos. Real use: pass an architecture
such as "ViT-B-32" and a weights file downloaded beforehand.

torch and open_clip are imported only when an embedder is built.
"""

from __future__ import annotations

import hashlib
import io
import logging
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from copy import deepcopy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from playscout.embed.device import Placement, default_batch, resolve_placement
from playscout.embed.embedder import (
    EmbedderSpec,
    EmbeddingError,
    check_dim,
    check_texts,
    normalize_rows,
)
from playscout.embed.frames import (
    RESIZE_MODES,
    FramePreprocessor,
    FrameTarget,
    HostBatch,
    StagedBatch,
    as_frame,
    prefetch,
    stack_frames,
)
from playscout.errors import install_hint, one_line

TINY_MODEL = "playscout-tiny"
# embed_dim 64; ViT: 64x64 input, 16x16 patches, width 64, 2 layers (1 head of 64);
# text: the standard CLIP BPE vocabulary, context 77, width 64, 4 heads, 2 layers.
TINY_CONFIG: dict[str, Any] = {
    "embed_dim": 64,
    "vision_cfg": {"image_size": 64, "layers": 2, "width": 64, "patch_size": 16},
    "text_cfg": {"context_length": 77, "vocab_size": 49408, "width": 64, "heads": 4, "layers": 2},
}
HUB_PREFIXES = ("hf-hub:", "local-dir:", "http://", "https://")

_registry_lock = threading.Lock()
_cache_lock = threading.Lock()


@dataclass
class _Loaded:
    model: Any
    tokenizer: Any
    preprocess: Any
    dim: int
    sha256: str  # weights_digest of the loaded weights
    lock: threading.Lock
    preprocess_cfg: dict[str, Any]  # size, mean, std, interpolation, resize_mode


# (arch, path, mtime_ns, size, device, dtype) -> model: a rewritten file is loaded again
_models: dict[tuple[str, str, int, int, str, str], _Loaded] = {}


def _open_clip() -> Any:
    try:
        import open_clip
    except ImportError as e:
        raise EmbeddingError(f"open_clip is not installed: {install_hint('video')}") from e
    return open_clip


def register_tiny_config() -> None:
    """Make "playscout-tiny" an open_clip architecture name (idempotent, process-wide)."""
    open_clip = _open_clip()
    with _registry_lock:
        if TINY_MODEL in open_clip.list_models():
            return
        configs = getattr(open_clip.factory, "_MODEL_CONFIGS", None)
        if isinstance(configs, dict):
            configs[TINY_MODEL] = deepcopy(TINY_CONFIG)
        else:  # a future open_clip without the dict: go through its public file-based API
            import json
            import tempfile

            folder = Path(tempfile.mkdtemp(prefix="playscout-open-clip-"))
            (folder / f"{TINY_MODEL}.json").write_text(json.dumps(TINY_CONFIG))
            open_clip.add_model_config(folder)


def _check_arch(model: str) -> dict[str, Any]:
    """The architecture's config; refuse names and configs that would reach a model hub."""
    open_clip = _open_clip()
    if model.startswith(HUB_PREFIXES):
        raise EmbeddingError(
            f"open_clip model {model!r}: give an architecture name (e.g. 'ViT-B-32') and a local "
            "weights file as pretrained=, never a hub or local-dir reference"
        )
    if model == TINY_MODEL:
        register_tiny_config()
    cfg = open_clip.get_model_config(model)
    if cfg is None:
        raise EmbeddingError(
            f"open_clip has no architecture {model!r}; see open_clip.list_models() "
            f"(or {TINY_MODEL!r} for the tiny test model)"
        )
    text_cfg = cfg.get("text_cfg", {})
    hub_keys = [k for k in ("hf_model_name", "hf_tokenizer_name") if k in text_cfg]
    if hub_keys:
        raise EmbeddingError(
            f"open_clip model {model!r} needs Hugging Face hub files ({', '.join(hub_keys)}); "
            "only architectures with the built-in CLIP tokenizer work offline"
        )
    return dict(cfg)


def _resolve_weights(model: str, pretrained: str | None) -> Path:
    """A local weights file; a hub tag or a missing file is a one-line error."""
    if pretrained is None or not str(pretrained).strip():
        hint = (
            f"make one with make_tiny_weights(PATH) for {TINY_MODEL!r}"
            if model == TINY_MODEL
            else "download the checkpoint beforehand"
        )
        raise EmbeddingError(
            f"open_clip model {model!r} needs pretrained=PATH of a local weights file; {hint}"
        )
    text = str(pretrained)
    path = Path(text).expanduser()
    if path.is_file():
        return path.resolve()  # absolute: open_clip never reads it as a tag
    open_clip = _open_clip()
    tags = set(open_clip.list_pretrained_tags_by_model(model)) if model != TINY_MODEL else set()
    if text.startswith(HUB_PREFIXES) or text in tags or text.lower() == "openai":
        raise EmbeddingError(
            f"open_clip pretrained={text!r} is a hub tag, not a file; download the weights "
            "yourself and pass their local path (nothing is fetched at run time)"
        )
    raise EmbeddingError(f"open_clip weights file {text!r} does not exist ({path.resolve()})")


def weights_digest(state_dict: Mapping[str, Any]) -> str:
    """SHA-256 of the weights themselves (names, dtypes, shapes, values in name order), so the
    same weights saved twice, or in another file format, have the same identity."""
    import torch

    h = hashlib.sha256()
    for name in sorted(state_dict):
        t = state_dict[name].detach().cpu().contiguous()
        h.update(f"{name}|{t.dtype}|{tuple(t.shape)}|".encode())
        h.update(t.reshape(-1).view(torch.uint8).numpy().tobytes())
    return h.hexdigest()


def _load(model: str, path: Path, placement: Placement) -> _Loaded:
    """One model per (architecture, weights file, device, dtype) per process; weights are
    read-only. The digest is of the file's fp32 weights, whatever dtype the tower runs in."""
    device = placement.device
    st = path.stat()
    key = (model, str(path), st.st_mtime_ns, st.st_size, device, placement.dtype)
    with _cache_lock:
        if key in _models:
            return _models[key]
    open_clip = _open_clip()
    import torch
    from open_clip.transform import PreprocessCfg, image_transform_v2

    if device.startswith("cuda") and not torch.cuda.is_available():
        raise EmbeddingError(f"open_clip device {device!r}: CUDA is not available here")
    try:
        net = open_clip.create_model(
            model, pretrained=str(path), device=device, require_pretrained=True
        )
    except Exception as e:  # torch.load / load_state_dict raise many kinds: all mean "bad file"
        raise EmbeddingError(
            f"cannot load open_clip {model!r} weights from {path}: {one_line(e, limit=300)}"
        ) from None
    net.eval()
    digest = weights_digest(net.state_dict())
    if placement.dtype != "float32":
        net = net.to(placement.torch_dtype())
    cfg = open_clip.get_model_preprocess_cfg(net)
    preprocess = image_transform_v2(PreprocessCfg(**cfg), is_train=False)
    tokenizer = open_clip.get_tokenizer(model)
    dim = int(open_clip.get_model_config(model)["embed_dim"])
    loaded = _Loaded(net, tokenizer, preprocess, dim, digest, threading.Lock(), dict(cfg))
    with _cache_lock:
        return _models.setdefault(key, loaded)


class _DropRandomInitWarning(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return "initialized randomly" not in record.getMessage()


def make_random_weights(path: Path | str, model: str = TINY_MODEL, seed: int = 0) -> Path:
    """Initialise `model` from `seed` (deterministic on one torch version) and save its state
    dict to `path`. The weights are random: similarities are meaningless; use them only to
    exercise the code path (tests, demos, throughput measurements)."""
    open_clip = _open_clip()
    _check_arch(model)
    import torch

    out = Path(path).expanduser()
    out.parent.mkdir(parents=True, exist_ok=True)
    quiet = _DropRandomInitWarning()
    logging.getLogger().addFilter(quiet)  # "initialized randomly" is the point here
    try:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            net = open_clip.create_model(model, pretrained=None, device="cpu")
    finally:
        logging.getLogger().removeFilter(quiet)
    buf = io.BytesIO()  # a file object: the archive name does not depend on the file name,
    torch.save(net.state_dict(), buf)  # so one seed always gives the same bytes
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_bytes(buf.getvalue())
    tmp.replace(out)
    return out


def make_tiny_weights(path: Path | str, seed: int = 0) -> Path:
    """Deterministic random weights for TINY_MODEL, saved to `path` (a few MB). Index and query
    sides then load the same file. Random weights give meaningless similarities; they exist only
    to run the real open_clip code path without downloading a checkpoint."""
    return make_random_weights(path, TINY_MODEL, seed)


class OpenClipEmbedder:
    """CLIP embedder: `embed_images` = image tower, `embed_queries`/`embed_documents` = text tower.

    `model` is an open_clip architecture name, `pretrained` the path of a local weights file
    (state dict or open_clip checkpoint). All outputs are L2-normalised float32 (n, dim).
    `weights_sha256`, when given (a recorded spec), must match `weights_digest` of the loaded
    weights; `pretrained` is only where they lie (a runtime option: the index may move).
    """

    def __init__(
        self,
        model: str = TINY_MODEL,
        *,
        dim: int | None = None,
        pretrained: str | None = None,
        device: str = "auto",
        batch_size: int | None = None,
        weights_sha256: str | None = None,
    ) -> None:
        if batch_size is not None and batch_size < 1:
            raise EmbeddingError(f"open_clip: batch_size must be >= 1, got {batch_size}")
        _check_arch(model)
        path = _resolve_weights(model, pretrained)
        self.placement = resolve_placement(device)
        device = self.placement.device
        batch_size = batch_size or default_batch("open_clip", self.placement)
        self._m = _load(model, path, self.placement)
        sha = self._m.sha256
        if weights_sha256 is not None and weights_sha256 != sha:
            raise EmbeddingError(
                f"open_clip weights {path} are not the ones recorded (sha256 {sha[:12]}... != "
                f"{weights_sha256[:12]}...); configure the file the vectors were made with"
            )
        self.model_name, self.pretrained, self.device = model, str(path), device
        self.batch_size, self.weights_sha256 = batch_size, sha
        self.dim = check_dim(dim, self._m.dim, f"open_clip {model}")

    def spec(self) -> EmbedderSpec:
        return EmbedderSpec(
            kind="open_clip",
            model=self.model_name,
            dim=self.dim,
            # No device: vectors made on a GPU box are queried on CPU ones (pass device= there).
            options={
                "pretrained": self.pretrained,
                "weights_sha256": self.weights_sha256,
                "batch_size": self.batch_size,
            },
        )

    def _text(self, texts: Sequence[str], where: str) -> np.ndarray:
        items = check_texts(texts, where)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        import torch

        out = []
        with self._m.lock, torch.inference_mode():
            for i in range(0, len(items), self.batch_size):
                tokens = self._m.tokenizer(items[i : i + self.batch_size]).to(self.device)
                out.append(self._m.model.encode_text(tokens, normalize=True).float().cpu().numpy())
        return normalize_rows(np.concatenate(out), self.dim, where)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._text(texts, "open_clip embed_documents")

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._text(texts, "open_clip embed_queries")

    def _batched_transform(self) -> tuple[int, str] | None:
        """(size, resize mode) of this model's eval transform when the batched torch
        pipeline implements it (square input, bicubic, a known resize mode), else None."""
        cfg = self._m.preprocess_cfg
        mode = str(cfg.get("resize_mode", "shortest"))
        size = cfg.get("size", 224)
        size = size if isinstance(size, int) else size[0] if size[0] == size[1] else None
        if size is None or mode not in RESIZE_MODES or cfg.get("interpolation") != "bicubic":
            return None
        return int(size), mode

    def preprocessor(self) -> FramePreprocessor | None:
        """The batched torch version of this model's eval transform; None for a resize mode
        it does not implement (those frames take open_clip's PIL transform)."""
        transform = self._batched_transform()
        if transform is None:
            return None
        cfg = self._m.preprocess_cfg
        size, mode = transform
        return FramePreprocessor(
            size, cfg["mean"], cfg["std"], self.device, self.placement.torch_dtype(), mode
        )

    def frame_size(self) -> FrameTarget | None:
        """The size frames should be decoded at (`media.sample_arrays(size=)`): the one the
        batched pipeline resizes to, so it only crops and normalises them, and each frame
        copied on the host and to the card is ~10x smaller than a 1280x720 one. None where
        frames take open_clip's PIL transform (decoded as they are)."""
        transform = self._batched_transform()
        return None if transform is None else FrameTarget(*transform)

    def embed_images(self, frames: Sequence[np.ndarray]) -> np.ndarray:
        """HxWx3 uint8 RGB frames (any size) -> (n, dim): resize shortest side, centre crop,
        CLIP mean/std, in batches on the device (embed/frames.py)."""
        where = "open_clip embed_images"
        if isinstance(frames, np.ndarray) and frames.ndim == 3:
            raise EmbeddingError(f"{where}: expected a sequence of frames, got one HxWx3 array")
        items = list(frames)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        step = self.batch_size
        chunks = (items[i : i + step] for i in range(0, len(items), step))
        return np.concatenate(list(self.embed_image_batches(chunks)))

    def embed_image_batches(self, batches: Iterable[Sequence[np.ndarray]]) -> Iterator[np.ndarray]:
        """One (len(batch), dim) array per batch of frames. The iterator is drawn, and each
        batch stacked (pinned on CUDA), in a prefetch thread while the tower runs on the
        batch before: a lazy iterator that decodes video overlaps the tower too. The tower
        runs in the placement's dtype (fp16 on a GPU); one device-to-host copy per batch."""
        import torch

        where = "open_clip embed_images"
        prep = self.preprocessor()
        pin = self.placement.is_cuda

        def host(batch: Sequence[np.ndarray]) -> Any:
            if isinstance(batch, np.ndarray) and batch.ndim == 3:
                raise EmbeddingError(f"{where}: a batch must be a sequence of frames")
            if len(batch) == 0:
                return None
            if prep is None:
                return self._pil_batch(batch, where)
            return stack_frames(batch, pin, where)

        def stage(prepared: Any) -> Any:
            """Start the batch's copy to the device (HostBatch: FramePreprocessor.upload)."""
            if isinstance(prepared, HostBatch):
                assert prep is not None
                return prep.upload(prepared)
            return prepared

        def finish(staged: Any) -> np.ndarray:
            if staged is None:
                return np.zeros((0, self.dim), dtype=np.float32)
            with self._m.lock, torch.inference_mode():
                if isinstance(staged, StagedBatch):
                    assert prep is not None
                    pixels = prep(staged)
                else:
                    pixels = staged.to(self.device, dtype=self.placement.torch_dtype())
                vecs = self._m.model.encode_image(pixels, normalize=True).float().cpu().numpy()
            return normalize_rows(vecs, self.dim, where)

        # One batch ahead: the next batch's copy starts before this one's tower; a batch that
        # fails is raised after every batch before it was given.
        ahead: list[Any] = []
        stream = prefetch(batches, host)
        while True:
            try:
                prepared = next(stream)
            except StopIteration:
                break
            except Exception:
                if ahead:
                    yield finish(ahead.pop())
                raise
            staged = stage(prepared)
            if ahead:
                yield finish(ahead.pop())
            ahead.append(staged)
        if ahead:
            yield finish(ahead.pop())

    def _pil_batch(self, batch: Sequence[np.ndarray], where: str) -> Any:
        """open_clip's own transform, one PIL image at a time (resize modes that the torch
        pipeline does not implement; the reference the torch pipeline is measured against)."""
        import torch
        from PIL import Image

        items = [as_frame(f, i, where) for i, f in enumerate(batch)]
        if not items:
            return torch.zeros(0)
        return torch.stack([self._m.preprocess(Image.fromarray(f)) for f in items])

    def embed_images_pil(self, frames: Sequence[np.ndarray]) -> np.ndarray:
        """The frames through open_clip's PIL preprocessing, one at a time, as before the
        batched pipeline: the reference its vectors are measured against (tests, benchmarks)."""
        import torch

        where = "open_clip embed_images_pil"
        out = []
        with self._m.lock, torch.inference_mode():
            for i in range(0, len(frames), self.batch_size):
                pixels = self._pil_batch(frames[i : i + self.batch_size], where)
                pixels = pixels.to(self.device, dtype=self.placement.torch_dtype())
                out.append(self._m.model.encode_image(pixels, normalize=True).float().cpu().numpy())
        if not out:
            return np.zeros((0, self.dim), dtype=np.float32)
        return normalize_rows(np.concatenate(out), self.dim, where)
