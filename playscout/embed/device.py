"""Where a model playscout runs itself lives: one device name for every embedder.

`auto` is the first CUDA GPU when torch sees one, else the CPU; `cpu`, `cuda` (= `cuda:0`) and
`cuda:N` name one. On a GPU the weights run in half precision (fp16 by default, bf16 on request)
at large batches, on the CPU in fp32 at small ones: the vectors must agree at cosine >= 0.999
row by row (the `gpu` tests in tests/embed/test_device.py), so an index built on a GPU box is
searched on a laptop.

On a CPU that computes bf16 natively (AVX512-BF16 or AMX), MiniLM's document passes run under
torch's bf16 autocast: the weights, layer norms and softmax stay fp32, the matrix products run
in bf16. On `make demo`'s captions that is 1.7x faster on 2 cores, and each row agrees with
fp32 at cosine >= 0.9999 (tests/embed/test_device.py). `PLAYSCOUT_CPU_PRECISION=float32` (or
the embedder option `cpu_precision`) keeps fp32; the index manifest records which ran.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from playscout.config import DEVICE_PATTERN
from playscout.embed.embedder import EmbeddingError

_DEVICE_RE = re.compile(DEVICE_PATTERN)
HALF_DTYPES = ("float16", "bfloat16")
CPU_PRECISIONS = ("auto", "float32", "bfloat16")
CPU_PRECISION_ENV = "PLAYSCOUT_CPU_PRECISION"

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
    autocast: str | None = None  # "bfloat16": fp32 weights, bf16 matrix products (CPU)

    @property
    def is_cuda(self) -> bool:
        return self.device.startswith("cuda")

    @contextlib.contextmanager
    def compute(self) -> Iterator[None]:
        """Where a model's forward passes run: under torch's autocast when one is set."""
        if self.autocast is None:
            yield
            return
        import torch

        with torch.autocast(self.device.partition(":")[0], dtype=getattr(torch, self.autocast)):
            yield

    def torch_dtype(self) -> Any:
        import torch

        return getattr(torch, self.dtype)

    def record(self) -> dict[str, str]:
        """What the index manifest records about the vectors a channel holds."""
        recorded = {"device": self.device, "dtype": self.dtype}
        return recorded | ({"autocast": self.autocast} if self.autocast else {})


def gpu_visible() -> bool:
    """Whether an NVIDIA device node is there, without importing torch (an index opened on a
    laptop must not pay for the import)."""
    return Path("/dev/nvidiactl").exists() or Path("/proc/driver/nvidia/gpus").is_dir()


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


def cpu_has_native_bf16() -> bool:
    """Whether this CPU multiplies bf16 in hardware (else autocast would emulate it, slowly)."""
    import torch

    checks = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
    return any(bool(getattr(torch.cpu, name, lambda: False)()) for name in checks)


def check_cpu_precision(precision: str | None) -> str:
    """An explicit precision, else $PLAYSCOUT_CPU_PRECISION, else auto; a bad one is an error."""
    chosen = precision if precision is not None else os.environ.get(CPU_PRECISION_ENV, "auto")
    if chosen not in CPU_PRECISIONS:
        where = "cpu_precision" if precision is not None else CPU_PRECISION_ENV
        raise EmbeddingError(f"{where} {chosen!r} is not one of {', '.join(CPU_PRECISIONS)}")
    return chosen


def resolve_placement(
    device: str = "auto", half: str = "float16", cpu_precision: str = "float32"
) -> Placement:
    """The device and its dtype: `half` (float16 or bfloat16) on a GPU; fp32 weights on the
    CPU, with bf16 autocast when `cpu_precision` asks for it (auto: where the CPU has it)."""
    if half not in HALF_DTYPES:
        raise EmbeddingError(f"GPU dtype {half!r} is not one of {', '.join(HALF_DTYPES)}")
    resolved = resolve_device(device)
    if resolved.startswith("cuda"):
        return Placement(resolved, half)
    precision = check_cpu_precision(cpu_precision)
    bf16 = precision == "bfloat16" or (precision == "auto" and cpu_has_native_bf16())
    return Placement(resolved, "float32", "bfloat16" if bf16 else None)


T = TypeVar("T")
_streams_lock = threading.Lock()  # torch's thread count is process-wide: one stream set at a time


def cpu_streams(placement: Placement, batches: int | None = None) -> int:
    """Independent passes to run side by side: one per core torch would use on the CPU (at
    most one per batch, when the batches are known), one on a GPU (the batch fills the card)."""
    if placement.is_cuda:
        return 1
    import torch

    cores = torch.get_num_threads()
    return max(1, cores if batches is None else min(cores, batches))


def run_streams(parts: Sequence[T], work: Callable[[int, T], Any]) -> list[Any]:
    """`work(i, parts[i])` for every part at once, each in its own thread running torch on one
    core. Why not one pass over every core: a small batch's products split across threads wait
    for each other at every op, and on a busy machine a descheduled thread stalls the rest. On 2
    cores beside a loaded server, 400 demo captions took 5.8 s in two streams and 7.3 s in one
    pass; `make demo` beside two busy processes 40.5 s against 47.8 s (docs/embedding.md)."""
    import torch

    with _streams_lock:
        before = torch.get_num_threads()

        def one(i: int) -> Any:
            torch.set_num_threads(1)  # this thread's ops; the other streams use the other cores
            return work(i, parts[i])

        try:
            threads = ThreadPoolExecutor(len(parts), thread_name_prefix="embed-stream")
            with threads:
                return list(threads.map(one, range(len(parts))))
        finally:
            torch.set_num_threads(before)


def default_batch(family: str, placement: Placement) -> int:
    return DEFAULT_BATCH[family]["cuda" if placement.is_cuda else "cpu"]


def with_device(spec: dict[str, Any] | None, device: str | None) -> dict[str, Any] | None:
    """An embedder spec dict that runs on `device` (for kinds that run a local model); the
    device is a runtime option, so the recorded spec and query-side checks ignore it."""
    if spec is None or device is None or spec.get("kind") not in DEFAULT_BATCH:
        return spec
    check_device_name(device)
    return {**spec, "options": {**(spec.get("options") or {}), "device": device}}
