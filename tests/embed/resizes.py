"""Counting the resizes FramePreprocessor runs on the device, for tests of frames decoded
at the tower's size (which it must only crop and normalise)."""

from __future__ import annotations

import pytest


def counting_resizes(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, ...]]:
    """The shapes of the batches FramePreprocessor resizes on the device (F.interpolate)."""
    import torch.nn.functional as F

    calls: list[tuple[int, ...]] = []
    real = F.interpolate

    def counted(x: object, *args: object, **kwargs: object) -> object:
        calls.append(tuple(x.shape))  # type: ignore[attr-defined]
        return real(x, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(F, "interpolate", counted)
    return calls
