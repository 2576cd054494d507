"""Keep a broken CUDA torchvision from breaking transformers on CPU torch (docs/install.md, torch).

PyPI has no CPU torchvision; a CUDA build's `_C.so` fails to load, and its meta registrations then
raise `operator torchvision::nms does not exist`, which also breaks `import transformers`.
Defining the two op schemas first lets it import. Done only when torchvision is installed and its
extension really cannot load, so a working torchvision is never touched.
"""

from __future__ import annotations

import importlib.util
import threading
from pathlib import Path

# Re-entrant: find_spec("torchvision") below runs the import hook in playscout/__init__.py.
_lock = threading.RLock()
_applied: bool | None = None
_keep: list[object] = []  # the torch.library.Library must stay alive


def apply_torchvision_shim() -> bool:
    """Apply once per process; returns whether the schemas were defined."""
    global _applied
    with _lock:
        if _applied is not None:
            return _applied
        _applied = False
        spec = importlib.util.find_spec("torchvision")
        if spec is None or not spec.submodule_search_locations:
            return False
        import torch

        try:
            torch.ops.torchvision.nms  # noqa: B018 - registered already (torchvision imported)
            return False
        except (AttributeError, RuntimeError):
            pass
        for loc in spec.submodule_search_locations:
            for so in Path(loc).glob("_C*.so"):
                try:
                    torch.ops.load_library(str(so))
                    return False  # the real kernels loaded; nothing to patch
                except OSError:
                    pass
        lib = torch.library.Library("torchvision", "DEF")
        lib.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        lib.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        _keep.append(lib)
        _applied = True
        return True
