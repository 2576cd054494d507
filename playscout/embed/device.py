"""Where a model playscout runs itself lives: one device name for every embedder.

`auto` is the first CUDA GPU when torch sees one, else the CPU; `cpu`, `cuda` (= `cuda:0`) and
`cuda:N` name one. On a GPU the weights run in half precision (fp16 by default, bf16 on request)
at large batches, on the CPU in fp32 at small ones: the vectors must agree at cosine >= 0.999
row by row (the `gpu` tests in tests/embed/test_device.py), so an index built on a GPU box is
searched on a laptop.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from playscout.embed.embedder import EmbeddingError

DEVICE_PATTERN = r"^(auto|cpu|cuda(:\d+)?)$"
_DEVICE_RE = re.compile(DEVICE_PATTERN)
HALF_DTYPES = ("float16", "bfloat16")

# Batch sizes by model family and device kind: big enough to fill a card (issue 28 measured
# bare MiniLM at batch 1,024 on an H200); on a CPU, small batches waste less on padding: 256
# demo captions on 2 cores took 3.6 s at batch 8-16 against 4.4 s at 64 (sentence-transformers
# sorts by length, so a small batch pads to its own longest text).
DEFAULT_BATCH: dict[str, dict[str, int]] = {
    "minilm": {"cpu": 16, "cuda": 1024},
    "bge-m3": {"cpu": 16, "cuda": 128},
    "open_clip": {"cpu": 32, "cuda": 256},
}


@dataclass(frozen=True)
class Placement:
    """A resolved device (`cpu` or `cuda:N`) and the dtype the weights run in there."""

    device: str
    dtype: str  # "float32" | "float16" | "bfloat16"

    @property
    def is_cuda(self) -> bool:
        return self.device.startswith("cuda")

    def torch_dtype(self) -> Any:
        import torch

        return getattr(torch, self.dtype)

    def record(self) -> dict[str, str]:
        """What the index manifest records about the vectors a channel holds."""
        return {"device": self.device, "dtype": self.dtype}


def check_device_name(name: str) -> str:
    if not isinstance(name, str) or not _DEVICE_RE.match(name.strip()):
        raise EmbeddingError(f"device {name!r} is not one of auto, cpu, cuda, cuda:N")
    return name.strip()


def resolve_device(name: str = "auto") -> str:
    """`auto` | `cpu` | `cuda` | `cuda:N` -> `cpu` or `cuda:N`; a named GPU that is not there
    is a one-line error (never a silent CPU run)."""
    name = check_device_name(name)
    if name == "cpu":
        return "cpu"
    import torch

    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if name == "auto":
        return "cuda:0" if count else "cpu"
    index = int(name.partition(":")[2] or 0)
    if index >= count:
        seen = f"{count} CUDA device(s)" if count else "no CUDA device (CPU build of torch?)"
        raise EmbeddingError(f"device {name!r}: torch sees {seen}; use --device cpu or auto")
    return f"cuda:{index}"


def resolve_placement(device: str = "auto", half: str = "float16") -> Placement:
    """The device and its dtype: fp32 on the CPU, `half` (float16 or bfloat16) on a GPU."""
    if half not in HALF_DTYPES:
        raise EmbeddingError(f"GPU dtype {half!r} is not one of {', '.join(HALF_DTYPES)}")
    resolved = resolve_device(device)
    return Placement(resolved, half if resolved.startswith("cuda") else "float32")


def default_batch(family: str, placement: Placement) -> int:
    return DEFAULT_BATCH[family]["cuda" if placement.is_cuda else "cpu"]


def with_device(spec: dict[str, Any] | None, device: str | None) -> dict[str, Any] | None:
    """An embedder spec dict that runs on `device` (for kinds that run a local model); the
    device is a runtime option, so the recorded spec and query-side checks ignore it."""
    if spec is None or device is None or spec.get("kind") not in DEFAULT_BATCH:
        return spec
    check_device_name(device)
    return {**spec, "options": {**(spec.get("options") or {}), "device": device}}
