"""A cold CLI command imports only what it uses (issue 29): a search embeds its query with
MiniLM's numpy encoder, so neither it nor the offline `ask` loads torch, transformers,
sentence-transformers or sklearn (~7 of a search's 8 CPU-seconds before), and a search does
not load the agent's LangGraph either. Each command runs in a fresh interpreter, which then
lists the modules it holds."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.synthdata import SynthIndex

MODEL_STACK = ("torch", "transformers", "sentence_transformers", "sklearn")

RUN = """
import json, sys
out, argv = sys.argv[1], sys.argv[2:]
sys.argv = ["playscout", *argv]
from playscout.cli import app
try:
    app()
    code = 0
except SystemExit as e:
    code = e.code or 0
roots = sorted({m.split(".")[0] for m in sys.modules})
open(out, "w").write(json.dumps({"code": code, "roots": roots}))
"""


def _run(tmp_path: Path, *argv: str) -> set[str]:
    out = tmp_path / "modules.json"
    proc = subprocess.run(
        [sys.executable, "-c", RUN, str(out), *argv],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert proc.returncode == 0 and out.is_file(), proc.stderr[-2000:]
    result = json.loads(out.read_text())
    assert result["code"] == 0, proc.stderr[-2000:]
    return set(result["roots"])


@pytest.mark.parametrize(
    ("argv", "also_absent"),
    [
        (["search", "documents", "fourth straight win"], ("langgraph", "langchain_core")),
        (["search", "videos", "three pointer", "--mode", "oracle"], ("langgraph",)),
        (["ask", "QUESTION", "--mode", "oracle", "--policy", "workflow"], ()),
    ],
    ids=["search-documents", "search-videos", "ask-workflow"],
)
def test_a_cold_command_loads_no_model_stack(
    synth_index: SynthIndex, tmp_path: Path, argv: list[str], also_absent: tuple[str, ...]
) -> None:
    argv = [synth_index.question if a == "QUESTION" else a for a in argv]
    where = ["--index", str(synth_index.index_dir), "--sport", "basketball"]
    if argv[0] == "ask":
        where += ["--corpus", str(synth_index.corpus_dir)]
    loaded = _run(tmp_path, *argv, *where)
    assert "tokenizers" in loaded  # the query was embedded, by the numpy encoder
    assert not loaded & {*MODEL_STACK, *also_absent}, sorted(loaded & {*MODEL_STACK, *also_absent})


def test_help_loads_no_model_stack(tmp_path: Path) -> None:
    loaded = _run(tmp_path, "--help")
    assert not loaded & {*MODEL_STACK, "langgraph", "tokenizers"}
