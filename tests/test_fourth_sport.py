"""A sport is one record plus its generator package: a fourth sport (tests/futsal), registered
from its record and generator, runs through synth, index, search, ask and an eval task with no
other edit, and reads its own facts (period word, aliases) at every stage."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from playscout.cli.main import app
from playscout.config import EvalSettings, Settings
from playscout.corpus import Corpus
from playscout.eval import RunSpec, run_eval
from playscout.eval.running.judge import run_aliases
from playscout.eval.storage.store import load_results
from playscout.tools import ToolContext
from playscout.tools.registry import SEARCH_TOOLS, call_tool
from tests.futsal import registered
from tests.synthdata import index_corpus, make_corpus


@pytest.fixture(scope="module")
def futsal(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """A two-game futsal corpus with three questions, and its index (BM25, MiniLM caption
    vectors for oracle search; no document vectors, to keep the test fast). Futsal stays
    registered while this module's tests run."""
    with registered() as name:
        root = tmp_path_factory.mktemp("futsal")
        corpus_dir = make_corpus(root / "corpus", games=2, seed=2, sports=[name], questions=3)
        index_corpus(corpus_dir, root / "index", doc_embedder=None)
        yield corpus_dir, root / "index"


def test_synth_writes_the_sport_with_its_own_words(futsal: tuple[Path, Path]) -> None:
    corpus = Corpus(futsal[0])
    assert corpus.sports() == ["futsal"]
    games = corpus.games("futsal")
    assert len(games) == 2
    captions = [c.caption for g in games for c in corpus.clips_of_game("futsal", g)]
    assert any("1st half" in c for c in captions) and any("2nd half" in c for c in captions)
    qs = corpus.questions("futsal")
    assert len(qs) == 3 and all(q.gold for q in qs)


def test_search_reads_the_records_aliases_and_period_word(futsal: tuple[Path, Path]) -> None:
    from playscout.search import open_backend

    ctx = ToolContext(backend=open_backend(futsal[1]), sport="futsal", mode="oracle")
    tools = {t.name: t for t in SEARCH_TOOLS}
    args = {"query": "shot", "teams": ["the lions"], "half": 2}
    out = call_tool(tools, ctx, "search_videos", args).observation
    assert "Lisbon Lions" in out and "the lions" in out, out
    assert "| half 2 |" in out, out


def test_ask_workflow_oracle_through_the_cli(futsal: tuple[Path, Path]) -> None:
    corpus_dir, index_dir = futsal
    question = Corpus(corpus_dir).questions("futsal")[0].question
    args = ["ask", question, "--index", str(index_dir), "--sport", "futsal"]
    args += ["--mode", "oracle", "--policy", "workflow"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    assert "answer:" in res.output and "clip_ids:" in res.output


def test_t9_eval_on_generated_questions(futsal: tuple[Path, Path], tmp_path: Path) -> None:
    corpus_dir, index_dir = futsal
    run = tmp_path / "run"
    settings = Settings(
        corpus_dir=corpus_dir,
        index=str(index_dir),
        eval=EvalSettings(cache_db=tmp_path / "cache.sqlite"),
    )
    spec = RunSpec(task="t9", mode="oracle", policy="workflow", sports=("futsal",), out_dir=run)
    summary = run_eval(spec, settings)
    aliases = run_aliases(run)
    assert summary.total == 3 and summary.ran == 3
    rows = load_results(run)
    assert {r.sport for r in rows} == {"futsal"}
    assert {r.status for r in rows} <= {"answered", "no_answer"}
    assert json.loads((run / "run.json").read_text())["sports"] == ["futsal"]
    assert aliases["futsal"]["dragoes"] == "porto dragons"  # the record's nickname table
