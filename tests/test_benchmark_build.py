"""benchmarks/build.py at its smallest: `corpus synth` + `index build` through the CLI, the
stage table and the projection printed, one JSON line per build written as it comes (no
timings are asserted)."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_build_benchmark_prints_stages_and_writes_each_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = importlib.util.spec_from_file_location("bench_build", ROOT / "benchmarks" / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_build", module)
    spec.loader.exec_module(module)
    results = tmp_path / "results.jsonl"
    args = ["--games", "3", "--work", str(tmp_path / "w"), "--results", str(results)]
    assert module.main([*args, "--device", "cpu", "--workers", "0"]) == 0
    out = capsys.readouterr().out
    assert "projected to 1,760,230 clips" in out
    assert "| embed " in out and "| records " in out
    (line,) = results.read_text().splitlines()
    row = json.loads(line)
    assert row["tree"] == "this" and row["games"] == 3
    sports = row["report"]["sports"]
    assert sports and all("stages" in info for info in sports.values())
    if shutil.which("nvidia-smi") is None:
        assert row["gpu_busy_share"] is None  # nothing to sample: said, not made up
