"""Folders whose names are not UTF-8 (a camera card, an old NAS): every `--json` command prints
one JSON document that parses, with the name's bytes escaped, or one error line; never a
traceback. Before, `corpus validate --json` on such a folder died in `orjson.dumps` ("str is not
valid UTF-8: surrogates not allowed"), exit 1. Real subprocesses, so stdout is a real pipe."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from .conftest import cli

pytestmark = pytest.mark.slow
NAME = os.fsdecode(b"games-\xff\xfe")  # bytes no UTF-8 decoder accepts
ESCAPED = "games-\\xff\\xfe"


def run(*args: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return subprocess.run(cli(*args), capture_output=True, timeout=600, env=env)


def strings(doc: object) -> str:
    """Every string in a parsed JSON document, joined: where an escaped name would show."""
    if isinstance(doc, dict):
        return " ".join(strings(k) + " " + strings(v) for k, v in doc.items())
    if isinstance(doc, list):
        return " ".join(strings(v) for v in doc)
    return doc if isinstance(doc, str) else ""


def one_document(proc: subprocess.CompletedProcess[bytes]) -> dict:
    """stdout is valid UTF-8 holding one JSON document, and nothing went wrong on stderr."""
    err = proc.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err, err
    assert proc.returncode == 0, err
    doc = json.loads(proc.stdout.decode("utf-8"))  # strict: must be UTF-8
    assert isinstance(doc, dict)
    return doc


def refused(proc: subprocess.CompletedProcess[bytes]) -> str:
    """A refusal: exit 1 or 2, one `error:`/`failed:` line on stderr, no traceback."""
    err = proc.stderr.decode("utf-8")  # strict: must be UTF-8 too
    assert "Traceback" not in err and proc.returncode in (1, 2), err
    [line] = [ln for ln in err.splitlines() if ln.startswith(("error: ", "failed: "))]
    return line


def test_every_json_command_survives_a_name_that_is_not_utf8(tmp_path: Path) -> None:
    corpus, runs = tmp_path / NAME, tmp_path / f"{NAME}-runs"
    synth = one_document(run("corpus", "synth", "--out", str(corpus), "--games", "2", "--json"))
    assert ESCAPED in strings(synth)
    assert run("corpus", "questions", str(corpus), "--per-sport", "2").returncode == 0
    validated = one_document(run("corpus", "validate", str(corpus), "--json"))
    assert validated["ok"] is True and ESCAPED in strings(validated)
    build = ["index", "build", "--corpus", str(corpus), "--sports", "hockey", "--json"]
    # tantivy takes its folder as UTF-8 text: refused at once, in one line, before embedding
    assert ESCAPED in refused(run(*build, "--out", str(tmp_path / f"{NAME}-index")))
    index = tmp_path / "index"  # the corpus and everything else keep the name
    built = one_document(run(*build, "--out", str(index)))
    assert built["sports"]["hockey"]["clips"] > 0
    found = one_document(run("search", "documents", "goal", "--index", str(index),
                             "--sport", "hockey", "--json"))  # fmt: skip
    assert found["result"]
    question = json.loads((corpus / "questions" / "hockey.json").read_text())[0]["question"]
    ask = ["ask", question, "--index", str(index), "--corpus", str(corpus), "--sport", "hockey",
           "--mode", "oracle", "--policy", "workflow", "--json",
           "--trajectory", str(tmp_path / f"{NAME}.jsonl")]  # fmt: skip
    answered = run(*ask)
    assert answered.returncode in (0, 1), answered.stderr.decode("utf-8", "replace")
    assert ESCAPED in strings(json.loads(answered.stdout.decode("utf-8")))  # trajectory path
    out = runs / "r1"
    evaluated = run("eval", "run", "--task", "t9", "--sport", "hockey", "--mode", "oracle",
                    "--policy", "workflow", "--limit", "1", "--index", str(index),
                    "--corpus", str(corpus), "--out", str(out), "--no-cache", "--json")  # fmt: skip
    assert evaluated.returncode in (0, 1) and "Traceback" not in evaluated.stderr.decode()
    assert ESCAPED in json.loads(evaluated.stdout.decode("utf-8"))["run_dir"]
    judged = one_document(run("eval", "judge", str(out), "--judge", "equivalence", "--json"))
    assert judged["judge"] == "equivalence"
    missing = tmp_path / NAME / "no-videos"
    videos = run("index", "videos", "--videos", str(missing), "--pbp", str(missing / "p.json"),
                 "--out", str(corpus), "--json")  # fmt: skip
    assert ESCAPED in refused(videos)
