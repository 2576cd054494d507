"""One meaning of "games" wherever a count is printed (every game, then how many have clips),
and a synthetic corpus says once that it has no video instead of warning per clip file."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from playscout.cli.main import app
from playscout.synthetic import generate_corpus

runner = CliRunner()


def _corpus(tmp_path: Path) -> Path:
    root = tmp_path / "c"
    generate_corpus(root, games=3, sports=["soccer"], seed=1, workers=1, clip_games=1)
    return root


def test_synth_validate_and_index_count_games_alike(tmp_path: Path) -> None:
    root = _corpus(tmp_path)
    validated = runner.invoke(app, ["corpus", "validate", str(root)], env={"COLUMNS": "200"})
    assert validated.exit_code == 0, validated.output
    assert "3 (1 with clips)" in validated.stdout
    assert validated.stdout.count("note: a synthetic corpus has captions but no video") == 1
    assert "absent" not in validated.output and "warning" not in validated.output
    strict = runner.invoke(app, ["corpus", "validate", str(root), "--strict", "--json"])
    assert strict.exit_code == 0 and json.loads(strict.stdout)["no_video"] is True
    built = runner.invoke(
        app,
        ["index", "build", "--corpus", str(root), "--out", str(tmp_path / "i"),
         "--doc-embedder", "none", "--caption-embedder", "none"],
    )  # fmt: skip
    assert built.exit_code == 0, built.output
    assert re.search(r"soccer: .*3 games \(1 with clips\)", built.stdout)


def test_a_synthetic_corpus_with_some_video_still_warns(tmp_path: Path) -> None:
    root = _corpus(tmp_path)
    paths = next((root / "data" / "soccer" / "clips").glob("*/clip_paths.json"))
    first = next(iter(json.loads(paths.read_text()).values()))
    clip = paths.parent / first
    clip.parent.mkdir(parents=True, exist_ok=True)
    clip.write_bytes(b"not empty")
    validated = runner.invoke(app, ["corpus", "validate", str(root)])
    assert validated.exit_code == 0, validated.output
    assert "clip files in clip_paths are absent" in validated.output
    assert "note: a synthetic" not in validated.stdout
