"""Issue 14's CLI failure cases, before and after: runs each case against the CLI at a git ref
(default e2bfd4c, before the #14 exit-code work) and against this working tree, and prints a
Markdown table of exit code and message. Each case names the test that guards it.

    .venv/bin/python scripts/failure_cases.py [--before REF] [--corpus DIR --index DIR]

Without --corpus/--index it builds a small synthetic fixture first (two sports, MiniLM document
and caption vectors, no video vectors: so default mode cannot search clips), ~2-4 min. Both
sides read the same fixture. One model server is a test double (FakeOpenAIServer, from tests/)
that lists its model and refuses every chat request: the case of a run where every item fails.
Not part of `make test` (it runs the CLI ~30 times in subprocesses)."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DEAD = "http://127.0.0.1:9/v1"  # the discard port: nothing listens, connections are refused
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
BOX = re.compile(r"[─│╭╮╰╯]")
WANTED = re.compile(
    r"^(error:|failed:|Error:|\w+Error:|status:|warning:|ran |judge |wrote |No such option|"
    r".*seconds: |\{)"
)


@dataclass
class Case:
    name: str
    what: str  # the wording of the failure
    args: Callable[[Path], list[str]]  # given the side's output folder
    test: str
    pick: str | None = None  # a regex the message line must match, else the first WANTED line


def message(stdout: str, stderr: str, pick: str | None) -> str:
    """The line that says what happened; a JSON document on stdout is shown by its keys."""
    try:
        doc = json.loads(stdout)
    except ValueError:
        doc = None
    if isinstance(doc, dict):
        return "JSON document on stdout: {" + ", ".join(doc) + "}"
    lines = [
        " ".join(BOX.sub(" ", ANSI.sub("", x)).split())
        for x in (stderr + "\n" + stdout).splitlines()
    ]
    lines = [x for x in lines if x]
    if pick is not None:
        chosen = [x for x in lines if re.search(pick, x)]
    else:
        chosen = [x for x in lines if WANTED.match(x)]
    text = chosen[0] if chosen else (lines[-1] if lines else "(no output)")
    return text if len(text) <= 170 else text[:167] + "..."


def run(
    src: Path, args: list[str], env: dict[str, str], timeout: int
) -> tuple[int, str, str, float]:
    """`python -m playscout ARGS` with `src` first on sys.path (cwd), so each side runs its own
    code from the same interpreter and packages; also the wall seconds it took."""
    start = time.perf_counter()
    try:
        p = subprocess.run(
            [sys.executable, "-m", "playscout", *args],
            cwd=src, env=env, capture_output=True, text=True, timeout=timeout,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return -1, "", f"(timed out after {timeout} s)", timeout
    return p.returncode, p.stdout, p.stderr, time.perf_counter() - start


def cases(corpus: Path, index: Path, refusing_url: str) -> list[Case]:
    ix = ["--index", str(index), "--corpus", str(corpus)]
    q = "who scored the most points?"
    return [
        Case("ask, index lacks the mode's clip channel", "`ask` prints `status: no_answer`, exit 0",
             lambda o: ["ask", q, *ix, "--policy", "workflow"],
             "tests/cli/test_exit_codes.py::test_ask_on_an_index_without_what_the_mode_needs"),
        Case("ask --sport curling", "`ask --sport curling` exits 0",
             lambda o: ["ask", q, *ix, "--sport", "curling", "--mode", "oracle", "--policy", "workflow"],
             "tests/cli/test_exit_codes.py::test_ask_unknown_sport_is_exit_2_like_search"),
        Case("search --sport curling", "(`search --sport curling` exits 2: the reference point)",
             lambda o: ["search", "documents", "win", "--index", str(index), "--sport", "curling"],
             "tests/cli/test_exit_codes.py::test_ask_unknown_sport_is_exit_2_like_search"),
        Case("ask, model server down", "model server down: waits, no reason",
             lambda o: ["ask", q, *ix, "--mode", "oracle", "--llm-url", DEAD, "--llm-model", "m"],
             "tests/cli/test_exit_codes.py::test_ask_with_the_model_server_down_fails_at_once"),
        Case("eval run, no model configured", "every question `error`, exit 0",
             lambda o: ["eval", "run", *ix, "--out", str(o / "r-nomodel"), "--limit", "2", "--no-cache"],
             "tests/cli/test_exit_codes.py::test_eval_run_without_a_model_stops_before_the_first_question"),
        Case("eval run, model server down", "every question `error`, exit 0",
             lambda o: ["eval", "run", *ix, "--out", str(o / "r-down"), "--limit", "2", "--no-cache",
                        "--mode", "oracle", "--llm-url", DEAD, "--llm-model", "m"],
             "tests/cli/test_exit_codes.py::test_eval_run_with_the_model_server_down_stops_before_the_first_question"),
        Case("eval run, every chat refused (HTTP 400)", "every question `error`, exit 0",
             lambda o: ["eval", "run", *ix, "--out", str(o / "r-refused"), "--limit", "2", "--no-cache",
                        "--mode", "oracle", "--llm-url", refusing_url, "--llm-model", "fake-model"],
             "tests/cli/test_exit_codes.py::test_eval_run_where_every_question_fails_exits_1_with_the_first_reason",
             pick=r"^(failed:|error:|ran )"),
        Case("eval run t3 (workflow)", "(setup for the report case; progress shows a total)",
             lambda o: ["eval", "run", "--task", "t3", *ix, "--out", str(o / "t3"), "--limit", "3",
                        "--policy", "workflow", "--mode", "oracle", "--no-cache"],
             "tests/cli/test_exit_codes.py::test_eval_run_that_answers_is_exit_0", pick=r"^ran "),
        Case("eval report on t3", "`TypeError: Dict key must be str` writing report.json",
             lambda o: ["eval", "report", str(o / "t3")],
             "tests/eval/results/test_report.py::test_t3_report_writes_json", pick=r"^(wrote |\w+Error)"),
        Case("eval run t9 twice, one mode (workflow)", "(setup: two runs in one mode)",
             lambda o: ["eval", "run", *ix, "--out", str(o / "t9-a"), "--limit", "2",
                        "--policy", "workflow", "--mode", "oracle", "--no-cache"],
             "tests/cli/test_exit_codes.py::test_eval_run_that_answers_is_exit_0", pick=r"^ran "),
        Case("", "",
             lambda o: ["eval", "run", *ix, "--out", str(o / "t9-b"), "--limit", "2",
                        "--policy", "workflow", "--mode", "oracle", "--no-cache"],
             "", pick=r"^ran "),
        Case("eval report, two runs in one mode", "two runs in one mode get the same label",
             lambda o: ["eval", "report", str(o / "t9-a"), str(o / "t9-b"), "--out", str(o / "cmp")],
             "tests/eval/results/test_report.py::test_two_runs_in_one_mode_keep_their_own_labels_and_plots",
             pick=r"^(\| sport|\w+Error)"),
        Case("the same report: files written", "one plot overwrites the other",
             lambda o: ["eval", "report", str(o / "t9-a"), str(o / "t9-b"), "--out", str(o / "cmp")],
             "tests/eval/results/test_report.py::test_two_runs_in_one_mode_keep_their_own_labels_and_plots",
             pick=r"^(wrote |\w+Error)"),
        Case("eval judge, judge server down", "(item 2: the judge endpoint is not checked)",
             lambda o: ["eval", "judge", str(o / "t3"), "--judge", "llm", "--judge-url", DEAD,
                        "--judge-model", "m"],
             "tests/cli/test_exit_codes.py::test_eval_judge_with_its_server_down"),
        Case("eval report, folder that is not a run", "(found while testing: a traceback)",
             lambda o: ["eval", "report", str(corpus)],
             "tests/cli/test_exit_codes.py::test_a_folder_that_is_not_a_run"),
        Case("eval judge, folder that is not a run", "(found while testing: `0 judged`, exit 0)",
             lambda o: ["eval", "judge", str(corpus), "--judge", "equivalence"],
             "tests/cli/test_exit_codes.py::test_a_folder_that_is_not_a_run"),
        Case("ask --json", "no `--json` on ask/search/index build",
             lambda o: ["ask", q, *ix, "--mode", "oracle", "--policy", "workflow", "--json"],
             "tests/cli/test_exit_codes.py::test_ask_answered_is_exit_0_and_json_is_one_document",
             pick=r"^(error:|No such)"),
        Case("search --json", "no `--json` on ask/search/index build",
             lambda o: ["search", "documents", "points", "--index", str(index), "--json"],
             "tests/cli/test_output.py::test_search_json_is_the_hits_as_data", pick=r"^(error:|No such)"),
        Case("corpus synth summary", "Python reprs (`seconds: 61.373940397999945`)",
             lambda o: ["corpus", "synth", "--out", str(o / "synth"), "--games", "1",
                        "--sports", "hockey", "--workers", "1"],
             "tests/cli/test_output.py::test_corpus_synth_summary_has_no_reprs",
             pick=r"(seconds|wrote|games|\d s\b)"),
    ]  # fmt: skip


def build_fixture(work: Path, env: dict[str, str]) -> tuple[Path, Path]:
    corpus, index = work / "corpus", work / "index"
    steps = [
        ["corpus", "synth", "--out", str(corpus), "--games", "3", "--sports", "basketball,hockey"],
        ["corpus", "questions", str(corpus)],
        ["index", "build", "--corpus", str(corpus), "--out", str(index)],
    ]
    for step in steps:
        rc, _, err, _ = run(ROOT, step, env, 1200)
        if rc != 0:
            sys.exit(f"fixture step {' '.join(step)} failed ({rc}): {err[-500:]}")
    return corpus, index


def export(ref: str, dest: Path) -> Path:
    """The tree at `ref`, without touching any worktree."""
    dest.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref], capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    return dest


def main() -> None:
    from tests.clients.fake_openai_server import FakeOpenAIServer, Reply

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", default="e2bfd4c")
    ap.add_argument("--corpus", type=Path)
    ap.add_argument("--index", type=Path)
    ap.add_argument("--timeout", type=int, default=300, help="seconds per command")
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLAYSCOUT_")}
    env["NO_COLOR"] = "1"
    env["COLUMNS"] = "200"
    with tempfile.TemporaryDirectory(prefix="failure-cases-") as tmp:
        work = Path(tmp)
        if args.corpus and args.index:
            corpus, index = args.corpus, args.index
        else:
            corpus, index = build_fixture(work, env)
        sides = {"before": export(args.before, work / "src-before"), "after": ROOT}
        refusing = FakeOpenAIServer(
            lambda body: Reply.error(400, "prompt is too long for this model")
        )
        rows = []
        with refusing:
            todo = cases(corpus, index, refusing.url)
            for side, src in sides.items():
                out = work / f"out-{side}"
                out.mkdir()
                for i, case in enumerate(todo):
                    rc, so, se, secs = run(src, case.args(out), env, args.timeout)
                    if side == "before":
                        rows.append([case, rc, secs, message(so, se, case.pick)])
                    else:
                        rows[i] += [rc, secs, message(so, se, case.pick)]
                    print(f"{side:6} {case.name}: exit {rc}", file=sys.stderr)
    load = os.getloadavg()[0]
    print(f"Before: {args.before}; after: this working tree. `{DEAD}` has no server. Seconds are")
    print(f"each command's wall time (process start included; load average {load:.1f}).\n")
    print("| case | the issue said | before: exit (s), message | after: exit (s), message | test |")
    print("|---|---|---|---|---|")
    for case, rc0, s0, m0, rc1, s1, m1 in rows:
        if not case.name:  # a setup step
            continue
        cell = lambda rc, s, m: f"**{rc}** ({s:.1f} s) `{m.replace('|', '/').replace('`', '')}`"  # noqa: E731
        before, after = cell(rc0, s0, m0), cell(rc1, s1, m1)
        print(f"| {case.name} | {case.what} | {before} | {after} | `{case.test}` |")


if __name__ == "__main__":
    main()
