"""An import hook: on the first import of `torchvision` anywhere in the process (by
sentence-transformers, transformers' image utilities, open_clip, timm, ...),
`apply_torchvision_shim` runs first, so a CUDA torchvision build on a CPU torch cannot break
those imports (see playscout/embed/_torch_shim.py). The hook then removes itself; it never
changes which module is found. Installed by `import playscout`, before any layer loads.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import sys
from collections.abc import Sequence
from types import ModuleType


class _TorchvisionShimFinder(importlib.abc.MetaPathFinder):
    """Runs the torchvision shim just before torchvision is first imported, then steps aside."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> None:
        if fullname != "torchvision":
            return None
        _remove_hook()
        # No torch, or a broken one: stay silent and let the real import report the problem.
        with contextlib.suppress(Exception):
            from playscout.embed._torch_shim import apply_torchvision_shim

            apply_torchvision_shim()
        return None  # the ordinary finders import torchvision itself


_HOOK = _TorchvisionShimFinder()


def _remove_hook() -> None:
    with contextlib.suppress(ValueError):
        sys.meta_path.remove(_HOOK)


def install() -> None:
    if "torchvision" in sys.modules:
        return  # imported before playscout: too late to help, and nothing to do
    if not any(isinstance(f, _TorchvisionShimFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _HOOK)
