"""benchmarks/gpu.py in its smallest CPU configuration: every section runs through the same
code a GPU runs, and device search equals the CPU exact path on every query (no timings are
asserted)."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
@pytest.mark.parametrize("pyav", [True, False], ids=["pyav", "no-pyav"])
def test_gpu_benchmark_smoke_profile_runs_on_the_cpu(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, pyav: bool
) -> None:
    """Without PyAV (a GPU machine that cannot install it) the frames are drawn and the MP4
    part is skipped, saying so; everything else still runs."""
    spec = importlib.util.spec_from_file_location("bench_gpu", ROOT / "benchmarks" / "gpu.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_gpu", module)  # its dataclasses look it up
    spec.loader.exec_module(module)
    if not pyav:
        monkeypatch.setattr(module, "have_pyav", lambda: False)
    assert module.main(["--profile", "smoke", "--work", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    video = (
        "clips/s from MP4, before",
        "clips/s from MP4, now",
        "processes",
        "stage table",
        "bound:",
        "h end to end from MP4",
        "clip vectors at the tower's size vs full size",
    )
    for section in (
        "captions/s (MiniLM)",
        "captions/s, build calls",
        "frames/s in memory, full size",
        "frames/s in memory, at size",
        "search p50, single query",
        "core vs bare torch, single",
        "projected for 1,760,230 clips x 8 frames",
        *(video if pyav else ("the MP4 part skipped",)),
    ):
        assert section in out, section
    if not pyav:
        assert not any(section in out for section in video)
    equal = re.search(r"equal to the CPU exact path: (\d+)/(\d+)", out)
    assert equal is not None and equal.group(1) == equal.group(2) and int(equal.group(2)) > 0
    cosine = re.search(r"pipeline vs PIL vectors: min cosine ([0-9.]+)", out)
    assert cosine is not None and float(cosine.group(1)) >= 0.99
    moved = re.search(r"tower's size vs full size: min cosine ([0-9.]+)", out)
    assert (moved is not None and float(moved.group(1)) >= 0.9995) if pyav else moved is None
