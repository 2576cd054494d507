"""A backend kind is one registry entry (playscout/search/kinds.py): a toy kind, the embedded
backend under a `toy://` scheme, is registered in one place (the `toy` fixture) and every site
goes through it: the conformance suite (one subclass), open, build, verify, the runtime and
the CLI. Settings.backend forces a kind, and a target that does not fit is one line."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from playscout.cli.main import app
from playscout.config import Settings
from playscout.corpus import Corpus
from playscout.indexer.build import build_from_corpus
from playscout.runtime import Runtime, SetupError
from playscout.search import (
    BackendKind,
    BackendKindError,
    kind_for,
    kind_names,
    open_backend,
    register_kind,
    unregister_kind,
)
from playscout.search.conformance import BackendConformance
from playscout.search.embedded_kind import EMBEDDED
from playscout.search.kinds import KINDS, builtin_kinds
from playscout.search.verify import verify_index

CALLS: list[tuple[str, str]] = []  # (what, target) for every call the toy kind answered


def _through(what: str, inner: Callable[..., Any]) -> Callable[..., Any]:
    def call(target: str, *args: Any) -> Any:
        CALLS.append((what, target))
        return inner(target.removeprefix("toy://"), *args)

    return call


TOY = BackendKind(
    name="toy",
    describes="toy://DIR",
    recognises=lambda target: target.startswith("toy://"),
    present=_through("present", EMBEDDED.present),
    manifest=_through("manifest", EMBEDDED.manifest),
    open=_through("open", EMBEDDED.open),
    build=_through("build", EMBEDDED.build),
    verify=_through("verify", EMBEDDED.verify),
    claim=_through("claim", EMBEDDED.claim),
    ann_probe=True,
)


@pytest.fixture(scope="module", autouse=True)
def toy() -> Iterator[BackendKind]:
    """The one place the toy kind is declared to playscout."""
    register_kind(TOY)
    yield TOY
    unregister_kind("toy")


@pytest.fixture
def calls() -> list[tuple[str, str]]:
    CALLS.clear()
    return CALLS


class TestToyConformance(BackendConformance):
    kind = "toy"

    @staticmethod
    def target(path: Path) -> str:
        return f"toy://{path}"


def test_the_registry_finds_the_kind_by_target_and_refuses_what_fits_none() -> None:
    assert kind_names() == (*KINDS.builtins, "toy")
    assert kind_for("toy://var/x") is TOY
    assert kind_for("var/index").name == "embedded"
    assert kind_for("http://127.0.0.1:9200/t9").name == "elasticsearch"
    with pytest.raises(BackendKindError, match=r"^no backend kind recognises .*'ftp://x'.*toy"):
        kind_for("ftp://x")
    register_kind(TOY)  # the same entry again: nothing changes
    with pytest.raises(ValueError, match=r"^backend kind 'toy' is already registered"):
        register_kind(dataclasses.replace(TOY, describes="toy:DIR"))
    with pytest.raises(ValueError, match="built-in"):
        unregister_kind("embedded")


def test_every_builtin_kind_runs_the_conformance_suite() -> None:
    """A kind without its one conformance subclass is caught here, not by its users."""
    declared = {
        m.group(1)
        for f in Path(__file__).parent.glob("test_*.py")
        for m in re.finditer(r'^    kind = "([^"]+)"$', f.read_text(), re.MULTILINE)
    }
    assert {k.name for k in builtin_kinds()} <= declared


def test_a_forced_kind_must_fit_the_target() -> None:
    assert kind_for("toy://var/x", "toy") is TOY
    with pytest.raises(BackendKindError, match=r"^backend elasticsearch needs http\(s\)://"):
        kind_for("var/index", "elasticsearch")
    with pytest.raises(BackendKindError, match=r"^backend toy needs toy://DIR, not 'var/index'"):
        kind_for("var/index", "toy")
    with pytest.raises(BackendKindError, match=r"^unknown backend kind 'solr'; known: elast"):
        kind_for("var/index", "solr")


@pytest.fixture(scope="module")
def toy_index(synth_corpus: Corpus, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The shared corpus' basketball index (BM25 only, no models), built through the toy kind."""
    target = f"toy://{tmp_path_factory.mktemp('toy') / 'index'}"
    CALLS.clear()
    build_from_corpus(
        synth_corpus.root, target, sports=["basketball"], doc_embedder=None, caption_embedder=None
    )
    assert [what for what, _ in CALLS] == ["claim", "build"]
    return target


def test_open_build_verify_and_runtime_go_through_the_kind(
    toy_index: str, calls: list[tuple[str, str]]
) -> None:
    backend = open_backend(toy_index, ann_probe=2)
    team = backend.entities("basketball")[0][0]
    assert backend.sports() == ["basketball"] and backend.search_documents("basketball", team)
    assert verify_index(toy_index).ok
    runtime = Runtime.from_settings(Settings(index=toy_index, backend="toy"), need_llm=False)
    assert runtime.require_backend().sports() == ["basketball"]
    assert [what for what, _ in calls] == [
        "manifest",
        "open",
        "verify",
        "present",
        "manifest",
        "open",
    ]
    assert {target for _, target in calls} == {toy_index}


def test_runtime_settings_backend_is_checked_against_the_index(toy_index: str) -> None:
    with pytest.raises(BackendKindError, match=r"^backend embedded needs an index directory"):
        Runtime.from_settings(Settings(index=toy_index, backend="embedded"), need_llm=False)
    missing = "toy:///no/such/index"
    with pytest.raises(SetupError, match=r"^no index at toy:///no/such/index: build one"):
        Runtime.from_settings(Settings(index=missing), need_llm=False)


def test_the_cli_builds_verifies_and_searches_through_the_kind(
    synth_corpus: Corpus, tmp_path: Path, calls: list[tuple[str, str]]
) -> None:
    target = f"toy://{tmp_path / 'cli-index'}"
    runner = CliRunner()
    none = ["--doc-embedder", "none", "--caption-embedder", "none", "--sports", "basketball"]
    built = runner.invoke(
        app, ["index", "build", "--corpus", str(synth_corpus.root), "--out", target, *none]
    )
    assert built.exit_code == 0, built.output
    verified = runner.invoke(app, ["index", "verify", target])
    assert verified.exit_code == 0, verified.output
    info = synth_corpus.game_info("basketball", next(iter(synth_corpus.games("basketball"))))
    assert info is not None
    team = info.home_team
    found = runner.invoke(app, ["search", "documents", team, "--index", target, "--json"])
    assert found.exit_code == 0, found.output
    assert json.loads(found.output)["result"]["hits"]
    assert [what for what, _ in calls] == [
        "claim",
        "build",
        "verify",
        "present",
        "manifest",
        "open",
    ]
    wrong = runner.invoke(
        app,
        [
            "index",
            "build",
            "--corpus",
            str(synth_corpus.root),
            "--out",
            target,
            "--backend",
            "elasticsearch",
            *none,
        ],
    )
    assert wrong.exit_code == 2
    assert "backend elasticsearch needs http(s)://host:port/prefix" in wrong.output


OUTSIDE = '''
"""Another package's tests: its kind, registered, runs playscout's packaged suite."""

import dataclasses

from playscout.search.conformance import BackendConformance
from playscout.search.embedded_kind import EMBEDDED
from playscout.search.kinds import register_kind


def _inner(call):
    return lambda target, *args: call(target.removeprefix("mine://"), *args)


fields = ("present", "manifest", "open", "build", "verify", "claim")
register_kind(
    dataclasses.replace(
        EMBEDDED,
        name="mine",
        describes="mine://DIR",
        recognises=lambda target: target.startswith("mine://"),
        **{f: _inner(getattr(EMBEDDED, f)) for f in fields},
    )
)


class TestMine(BackendConformance):
    kind = "mine"

    @staticmethod
    def target(path):
        return f"mine://{path}"
'''


def test_a_kind_from_another_package_runs_the_packaged_suite(tmp_path: Path) -> None:
    """Outside this repository's tests (no conftest, no fixtures of ours), a plugin's test
    module subclasses the suite and pytest runs it on the plugin's kind."""
    (tmp_path / "test_mine.py").write_text(OUTSIDE)
    picked = "test_sports_and_entities or test_get_clips or test_dense_paraphrase_hit"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    run = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", picked]
    done = subprocess.run(
        [*run, "--rootdir", str(tmp_path), str(tmp_path / "test_mine.py")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "3 passed" in done.stdout


def test_importing_playscout_never_needs_pytest() -> None:
    code = (
        "import sys\n"
        "sys.modules['pytest'] = None  # importing it would fail\n"
        "import playscout.cli.main, playscout.search, playscout.runtime, playscout.serving\n"
        "from playscout.search import kind_for, open_backend\n"
        "kind_for('/tmp/x'), open_backend\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
