"""--device on the commands that embed, and `index embed --what clips` through the frame
pipeline on real clip MP4s."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from playscout.cli.main import app
from playscout.embed import TINY_MODEL, make_tiny_weights
from playscout.synthetic.broadcast.clips import render_clip_files
from tests.corpus.minicorpus import write_minicorpus

runner = CliRunner()


def test_a_bad_device_name_is_one_line(tmp_path: Path) -> None:
    root = write_minicorpus(tmp_path / "c")
    for args in (
        ["index", "build", "--corpus", str(root), "--out", str(tmp_path / "i")],
        ["index", "embed", "--corpus", str(root), "--out", str(tmp_path / "v")],
    ):
        result = runner.invoke(app, [*args, "--device", "gpu0"])
        assert result.exit_code == 2, result.output
        assert "device 'gpu0' is not one of auto, cpu, cuda, cuda:N" in result.output
        assert "Traceback" not in result.output


def test_clips_need_an_image_model(tmp_path: Path) -> None:
    root = write_minicorpus(tmp_path / "c")
    result = runner.invoke(
        app,
        ["index", "embed", "--corpus", str(root), "--out", str(tmp_path / "v"), "--what", "clips"],
    )
    assert result.exit_code == 2
    assert "--what clips needs --embedder open_clip:ARCH@WEIGHTS" in result.output


@pytest.mark.slow
def test_index_embed_clips_then_build_records_the_device(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What made each channel's vectors reaches the manifest; $PLAYSCOUT_CPU_PRECISION=float32
    keeps MiniLM's captions in fp32 on a CPU that would run bf16 autocast (open_clip never
    autocasts: its CPU agreement is not measured)."""
    monkeypatch.setenv("PLAYSCOUT_CPU_PRECISION", "float32")
    root = write_minicorpus(tmp_path / "c")
    rendered = render_clip_files(tmp_path / "r", 2, seconds=1.0, size=(160, 96), fps=5)
    n = 0
    for listed in (root / "data/basketball/clips").rglob("clip_paths.json"):
        for i, name in enumerate(json.loads(listed.read_text()).values()):
            shutil.copyfile(rendered[i % 2], listed.parent / name)
            n += 1
    weights = make_tiny_weights(tmp_path / "tiny.pt")
    vv = tmp_path / "vv"
    result = runner.invoke(
        app,
        [
            "index", "embed", "--corpus", str(root), "--out", str(vv), "--what", "clips",
            "--embedder", f"open_clip:{TINY_MODEL}@{weights}", "--device", "cpu",
            "--frames-per-clip", "3",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert f"{n} clip vectors" in result.output
    spec = json.loads((vv / "embedder.json").read_text())
    assert spec["made_on"] == {"device": "cpu", "dtype": "float32"}
    assert "device" not in spec["options"]  # read on any machine

    index = tmp_path / "idx"
    result = runner.invoke(
        app,
        [
            "index", "build", "--corpus", str(root), "--out", str(index), "--doc-embedder",
            "none", "--video-vectors", str(vv), "--device", "cpu",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    channels = json.loads((index / "manifest.json").read_text())["sports"]["basketball"]["channels"]
    assert channels["caption"]["made_on"] == {"device": "cpu", "dtype": "float32"}
    assert channels["visual"]["made_on"] == {"device": "cpu", "dtype": "float32"}
